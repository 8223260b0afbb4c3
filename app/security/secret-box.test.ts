import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env.server";
import { decryptSecret, encryptSecret } from "./secret-box.server";

afterEach(() => {
  delete process.env.SETTINGS_ENCRYPTION_KEY;
  resetEnvCache();
});

function setEnv(values: Record<string, string>) {
  Object.assign(process.env, values);
  resetEnvCache();
}

describe("secret box", () => {
  it("uses a fresh IV each time and refuses tampered ciphertext", () => {
    const a = encryptSecret("same");
    const b = encryptSecret("same");
    expect(a).not.toBe(b);
    expect(decryptSecret(a)).toBe("same");
    const [v, iv, tag, body] = a.split(":");
    // Another first character always changes the first byte (the old flip of the last two could
    // write back what was there, about once in 64 runs).
    const flipped = `${v}:${iv}:${tag}:${body!.startsWith("A") ? "B" : "A"}${body!.slice(1)}`;
    expect(() => decryptSecret(flipped)).toThrow(/cannot be decrypted/);
  });

  it("keys from SETTINGS_ENCRYPTION_KEY when set, so another key cannot read it", () => {
    setEnv({ SETTINGS_ENCRYPTION_KEY: "dedicated-key-one" });
    const sealed = encryptSecret("secret");
    expect(decryptSecret(sealed)).toBe("secret");
    setEnv({ SETTINGS_ENCRYPTION_KEY: "another-key" });
    expect(() => decryptSecret(sealed)).toThrow();
  });
});
