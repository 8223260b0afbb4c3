import { describe, expect, it } from "vitest";
import { tFor } from "../../i18n/i18n.server";
import { recoveryCodesFileName, recoveryCodesText } from "./recovery-codes-file";

describe("the recovery codes' text file", () => {
  it("is named after the product, in plain ASCII, in the person's language", () => {
    const en = tFor("en");
    expect(recoveryCodesFileName("Admin Dashboard", en)).toBe("admin-dashboard-recovery-codes.txt");
    expect(recoveryCodesFileName("Müller & Söhne Ops", en)).toBe("muller-sohne-ops-recovery-codes.txt");
    expect(recoveryCodesFileName("../../etc/passwd", en)).toBe("etc-passwd-recovery-codes.txt");
    // A name with nothing usable in it leaves only what the file holds.
    expect(recoveryCodesFileName("  ✨ ", en)).toBe("recovery-codes.txt");
    expect(recoveryCodesFileName("Admin Dashboard", tFor("de"))).toBe(
      "admin-dashboard-wiederherstellungscodes.txt",
    );
    expect(recoveryCodesFileName("x".repeat(200), en)).toBe(`${"x".repeat(40)}-recovery-codes.txt`);
  });

  it("says for which product and account the codes are, then one code a line", () => {
    const input = {
      appName: "Acme & Co <Console>",
      email: "ada@example.test",
      codes: ["aaaa-bbbb", "cccc-dddd"],
      made: "3 Mar 2026, 10:00 UTC",
    };
    const text = recoveryCodesText(input, tFor("en"));
    const lines = text.split("\n");
    expect(lines[0]).toBe("Acme & Co <Console>: two-factor recovery codes");
    expect(lines[1]).toBe("Account: ada@example.test");
    expect(lines[2]).toBe("Made: 3 Mar 2026, 10:00 UTC");
    expect(lines.slice(-3)).toEqual(["aaaa-bbbb", "cccc-dddd", ""]);
    expect(recoveryCodesText(input, tFor("de"))).toContain("Konto: ada@example.test");
  });
});
