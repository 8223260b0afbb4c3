import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { APP_NAME } from "../config";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import {
  clearSystemConfigCache,
  describeSystemConfig,
  getSystemConfig,
  resetSystemConfig,
  setSystemConfig,
} from "./system-config.server";

beforeAll(setupDatabase);
afterEach(async () => {
  for (const key of ["MAIL_API_KEY", "EMAIL_FROM", "APP_NAME", "SETTINGS_ENCRYPTION_KEY"])
    delete process.env[key];
  resetEnvCache();
  await db().deleteFrom("system_setting").execute();
  clearSystemConfigCache();
});

function setEnv(values: Record<string, string>) {
  Object.assign(process.env, values);
  resetEnvCache();
}

describe("getSystemConfig", () => {
  it("is read without a second argument everywhere: the fallback is declared once, in config-keys", () => {
    const files = execFileSync("git", ["ls-files", "app", "server", "scripts"], { encoding: "utf8" })
      .split("\n")
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".test.ts") && existsSync(f));
    const repeated = files.filter((f) => /getSystemConfig\(\s*"[A-Z_]+"\s*,/.test(readFileSync(f, "utf8")));
    expect(repeated).toEqual([]);
  });

  it("falls back to the declared environment variable, then the fixed default", async () => {
    expect(await getSystemConfig("APP_NAME")).toBe(APP_NAME);
    expect(await getSystemConfig("AUDIT_RETENTION_DAYS")).toBe("365");
    setEnv({ APP_NAME: "From Env", AUDIT_RETENTION_DAYS: "30" });
    expect(await getSystemConfig("APP_NAME")).toBe("From Env");
    expect(await getSystemConfig("AUDIT_RETENTION_DAYS")).toBe("30");
    // The two-argument form names its own fallback.
    expect(await getSystemConfig("MAIL_API_KEY", "given")).toBe("given");
    delete process.env.AUDIT_RETENTION_DAYS;
  });

  it("uses the fallback when nothing is stored, the declared fallback when none is passed", async () => {
    expect(await getSystemConfig("EMAIL_FROM", "env@example.test")).toBe("env@example.test");
    expect(await getSystemConfig("APP_NAME")).toBe(APP_NAME);
    expect(await getSystemConfig("MAIL_API_KEY")).toBeUndefined();
    setEnv({ EMAIL_FROM: "from-env@example.test" });
    expect(await getSystemConfig("EMAIL_FROM")).toBe("from-env@example.test");
  });

  it("prefers the database over the environment", async () => {
    setEnv({ APP_NAME: "Env Name" });
    await setSystemConfig("APP_NAME", "Database Name", null);
    expect(await getSystemConfig("APP_NAME", "Env Name")).toBe("Database Name");
    expect(await getSystemConfig("APP_NAME")).toBe("Database Name");
  });

  it("caches reads and clears the cache on every write", async () => {
    await setSystemConfig("APP_NAME", "First", null);
    expect(await getSystemConfig("APP_NAME")).toBe("First");
    // A change behind the cache's back is not seen until the next write clears it...
    await db().updateTable("system_setting").set({ value: "Sneaky" }).where("key", "=", "APP_NAME").execute();
    expect(await getSystemConfig("APP_NAME")).toBe("First");
    // ...while writes through the module are seen on the very next read.
    await setSystemConfig("APP_NAME", "Second", null);
    expect(await getSystemConfig("APP_NAME")).toBe("Second");
    await resetSystemConfig("APP_NAME");
    expect(await getSystemConfig("APP_NAME", "Fallback")).toBe("Fallback");
  });

  it("stores secrets encrypted: the raw column never holds the plaintext", async () => {
    const key = "pm-server-token-1234567890";
    await setSystemConfig("MAIL_API_KEY", key, null);
    const row = await db()
      .selectFrom("system_setting")
      .selectAll()
      .where("key", "=", "MAIL_API_KEY")
      .executeTakeFirstOrThrow();
    expect(row.is_secret).toBe(1);
    expect(row.value).not.toContain(key);
    expect(row.value).not.toContain(Buffer.from(key).toString("base64"));
    expect(row.value).toMatch(/^v1:/);
    expect(await getSystemConfig("MAIL_API_KEY")).toBe(key);
    // Plain settings stay readable.
    await setSystemConfig("APP_NAME", "Visible", null);
    const plain = await db()
      .selectFrom("system_setting")
      .select("value")
      .where("key", "=", "APP_NAME")
      .executeTakeFirstOrThrow();
    expect(plain.value).toBe("Visible");
  });

  it("shows secrets as a hint only, with where each value comes from", async () => {
    setEnv({ EMAIL_FROM: "env@example.test" });
    await setSystemConfig("MAIL_API_KEY", "pm-server-token-ABCD", null);
    const views = Object.fromEntries(
      (await describeSystemConfig({ isSuperAdmin: true })).map((v) => [v.key, v]),
    );
    expect(views.MAIL_API_KEY).toMatchObject({
      source: "database",
      value: null,
      hint: "…ABCD",
      secret: true,
    });
    expect(JSON.stringify(views)).not.toContain("pm-server-token");
    expect(views.EMAIL_FROM).toMatchObject({ source: "environment", value: "env@example.test" });
    expect(views.APP_NAME).toMatchObject({ source: "default", value: APP_NAME });
  });
});
