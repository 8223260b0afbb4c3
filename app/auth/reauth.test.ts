import { generateTOTP } from "@epic-web/totp";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { args, PASSWORD, run, sessionCookieFor, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { action as apiTokensAction } from "../routes/dashboard.settings.api-tokens/route";
import { loader, action as securityAction } from "../routes/dashboard.settings.security/route";
import { action as systemAction } from "../routes/dashboard.settings.system/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { clearSystemConfigCache, getSystemConfig } from "../system-settings/system-config.server";
import { hasTwoFactor } from "./two-factor.server";

// One re-authentication for every account-security step and super admin setting
// (assertReauthenticated; docs/rules.md, "Re-authentication"): the password where the account has
// one, a code from the authenticator where it has two-factor (either is enough), a recent sign-in
// where it has neither. An account that signs in only through single sign-on was stuck: it could
// not change mail routing, nor turn two-factor off once on.

withFakePostmark();
beforeAll(setupDatabase);
beforeEach(async () => {
  resetRateLimits();
  await db().deleteFrom("system_setting").execute();
  clearSystemConfigCache();
});
afterEach(() => vi.useRealTimers());

type User = Awaited<ReturnType<typeof signedIn>>;

/** The Settings page whose action handles the intent: System's, API tokens' or Security's. */
function pageFor(intent: string | undefined) {
  if (intent === "system") return { path: "/dashboard/settings/system", action: systemAction };
  if (intent === "create-api-token")
    return { path: "/dashboard/settings/api-tokens", action: apiTokensAction };
  return { path: "/dashboard/settings/security", action: securityAction };
}

function submit(values: Record<string, string>, cookie: string) {
  const { path, action } = pageFor(values.intent);
  return run(() => action(args(formRequest(path, values, { cookie }))));
}

/** Moves the clock (Date only) on by a TOTP step or more: a code counts once per step. */
function later(seconds: number) {
  const base = Date.now();
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(base + seconds * 1000);
}

const codeFor = async (secret: string) =>
  (await generateTOTP({ secret, period: 30, digits: 6, algorithm: "SHA-1" })).otp;

const audits = (userId: string, action: string) =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("actor_id", "=", userId)
    .where("action", "=", action as never)
    .execute();

async function pageOf(cookie: string) {
  const out = await run(() => loader(args(formRequest("/dashboard/settings/security", {}, { cookie }))));
  return out.body as {
    twoFactor: { view: { secret?: string }; reauth: { password: boolean; code: boolean } };
  };
}

/** A user (optionally without a password: single sign-on only) with two-factor on; answers the secret. */
async function withTotp(roles: string[], { password }: { password: boolean }) {
  const u = await signedIn(roles);
  if (!password) await db().updateTable("user").set({ password_hash: null }).where("id", "=", u.id).execute();
  const start = await submit(
    password ? { intent: "two-factor-start", currentPassword: PASSWORD } : { intent: "two-factor-start" },
    u.cookie,
  );
  expect(start.status).toBe(200);
  const secret = (await pageOf(u.cookie)).twoFactor.view.secret!;
  const confirm = await submit({ intent: "two-factor-confirm", code: await codeFor(secret) }, u.cookie);
  expect(confirm.status).toBe(200);
  const recovery = (confirm.body as { recoveryCodes: string[] }).recoveryCodes;
  // The next code must come from a later step than the one that confirmed; and past the fresh
  // sign-in window, so only the code can pass.
  later(11 * 60);
  return { ...u, secret, recovery } as User & { secret: string; recovery: string[] };
}

describe("a super admin who signs in only through single sign-on, with two-factor", () => {
  it("is offered the code field, not the password", async () => {
    const root = await withTotp(["super_admin"], { password: false });
    expect((await pageOf(root.cookie)).twoFactor.reauth).toEqual({ password: false, code: true });
  });

  it("changes the sender with a code from the authenticator", async () => {
    const root = await withTotp(["super_admin"], { password: false });
    const out = await submit(
      { intent: "system", EMAIL_FROM: "Acme <ops@acme.test>", reauthCode: await codeFor(root.secret) },
      root.cookie,
    );
    expect(out.status).toBe(200);
    expect(await getSystemConfig("EMAIL_FROM")).toBe("Acme <ops@acme.test>");
    expect(await audits(root.id, "settings.update")).toHaveLength(1);
  });

  it("is refused without a code or with a wrong one (audited, counted), then 429", async () => {
    const root = await withTotp(["super_admin"], { password: false });
    const missing = await submit({ intent: "system", EMAIL_FROM: "Acme <ops@acme.test>" }, root.cookie);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ errors: { reauthCode: expect.any(String) } });
    for (let i = 0; i < 5; i++) {
      const wrong = await submit(
        { intent: "system", EMAIL_FROM: "Acme <ops@acme.test>", reauthCode: `00000${i}` },
        root.cookie,
      );
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ errors: { reauthCode: expect.stringMatching(/not right/) } });
    }
    // The budget is the one every re-authentication spends: the right code is refused too now.
    const limited = await submit(
      { intent: "system", EMAIL_FROM: "Acme <ops@acme.test>", reauthCode: await codeFor(root.secret) },
      root.cookie,
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBeTruthy();
    expect(await getSystemConfig("EMAIL_FROM")).not.toBe("Acme <ops@acme.test>");
    const failed = await audits(root.id, "account.reauth.failed");
    expect(failed).toHaveLength(5);
    expect(JSON.parse(failed[0]!.details ?? "{}")).toMatchObject({ method: "code" });
    expect(await audits(root.id, "account.reauth.rate_limited")).toHaveLength(1);
    expect(await audits(root.id, "settings.update")).toEqual([]);
  });

  it("a code counts once: replaying it is refused", async () => {
    const root = await withTotp(["super_admin"], { password: false });
    const code = await codeFor(root.secret);
    expect(
      (await submit({ intent: "system", EMAIL_FROM: "One <one@acme.test>", reauthCode: code }, root.cookie))
        .status,
    ).toBe(200);
    const replay = await submit(
      { intent: "system", EMAIL_FROM: "Two <two@acme.test>", reauthCode: code },
      root.cookie,
    );
    expect(replay.status).toBe(400);
    expect(await getSystemConfig("EMAIL_FROM")).toBe("One <one@acme.test>");
  });
});

describe("an account that signs in only through single sign-on, with two-factor", () => {
  it("turns two-factor off with a code; new recovery codes with a recovery code", async () => {
    const u = await withTotp(["user"], { password: false });
    const refused = await submit({ intent: "two-factor-disable" }, u.cookie);
    expect(refused.status).toBe(400);
    expect(await hasTwoFactor(u.id)).toBe(true);

    const fresh = await submit({ intent: "two-factor-recovery-codes", reauthCode: u.recovery[0]! }, u.cookie);
    expect(fresh.status).toBe(200);
    expect((fresh.body as { recoveryCodes: string[] }).recoveryCodes).toHaveLength(10);

    const off = await submit({ intent: "two-factor-disable", reauthCode: await codeFor(u.secret) }, u.cookie);
    expect(off.status).toBe(200);
    expect(await hasTwoFactor(u.id)).toBe(false);
    expect(await audits(u.id, "account.two_factor.disable")).toHaveLength(1);
  });

  it("creates an API token with a code, and is refused one with a wrong code", async () => {
    const u = await withTotp(["user"], { password: false });
    const token = {
      intent: "create-api-token",
      name: "ci",
      expiresInDays: "30",
      permissions: "dashboard.access",
    };
    expect((await submit({ ...token, reauthCode: "123123" }, u.cookie)).status).toBe(400);
    const ok = await submit({ ...token, reauthCode: await codeFor(u.secret) }, u.cookie);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ secret: expect.stringMatching(/^dash_/) });
  });
});

describe("an account with a password", () => {
  // docs/rules.md: a code is enough where the account has two-factor (like the password), else
  // the password is what it has, and a code field is ignored.
  it("without two-factor still needs its password: a code alone is refused", async () => {
    const u = await signedIn(["user"]);
    const out = await submit({ intent: "two-factor-start", reauthCode: "123456" }, u.cookie);
    expect(out.status).toBe(400);
    expect(out.body).toMatchObject({ errors: { currentPassword: "Enter your current password." } });
    expect((await pageOf(u.cookie)).twoFactor.reauth).toEqual({ password: true, code: false });
  });

  it("with two-factor may use its password or a code; a wrong password is not rescued by a code", async () => {
    const u = await withTotp(["user"], { password: true });
    expect((await pageOf(u.cookie)).twoFactor.reauth).toEqual({ password: true, code: true });
    const missing = await submit({ intent: "two-factor-recovery-codes" }, u.cookie);
    expect(missing.body).toMatchObject({
      errors: { currentPassword: "Enter your current password or a code from your authenticator." },
    });
    // The password, when entered, is what is checked.
    const wrong = await submit(
      { intent: "two-factor-recovery-codes", currentPassword: "not it", reauthCode: await codeFor(u.secret) },
      u.cookie,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ errors: { currentPassword: expect.any(String) } });
    expect(
      (await submit({ intent: "two-factor-recovery-codes", reauthCode: await codeFor(u.secret) }, u.cookie))
        .status,
    ).toBe(200);
    later(31);
    expect(
      (await submit({ intent: "two-factor-recovery-codes", currentPassword: PASSWORD }, u.cookie)).status,
    ).toBe(200);
  });
});

describe("an account with neither (single sign-on only, no two-factor)", () => {
  it("changes mail routing as a super admin only right after signing in", async () => {
    const root = await signedIn(["super_admin"]);
    await db().updateTable("user").set({ password_hash: null }).where("id", "=", root.id).execute();
    later(11 * 60);
    const stale = await submit({ intent: "system", EMAIL_FROM: "Acme <ops@acme.test>" }, root.cookie);
    expect(stale.status).toBe(403);
    expect(await audits(root.id, "settings.update")).toEqual([]);
    const fresh = await sessionCookieFor(root.id);
    const out = await submit({ intent: "system", EMAIL_FROM: "Acme <ops@acme.test>" }, fresh);
    expect(out.status).toBe(200);
    expect(await getSystemConfig("EMAIL_FROM")).toBe("Acme <ops@acme.test>");
  });
});

describe("the system form's re-authentication fields are parsed on the server", () => {
  it.each([
    ["currentPassword", "x".repeat(1025)],
    ["reauthCode", "1".repeat(21)],
  ])("an over-long %s is a 400 field error and nothing changes", async (field, value) => {
    const root = await signedIn(["super_admin"]);
    const out = await submit(
      { intent: "system", EMAIL_FROM: "Acme <ops@acme.test>", APP_NAME: "Long", [field]: value },
      root.cookie,
    );
    expect(out.status).toBe(400);
    expect(out.body).toMatchObject({ ok: false, errors: { [field]: expect.any(String) } });
    expect(await getSystemConfig("APP_NAME")).not.toBe("Long");
    expect(await audits(root.id, "settings.update")).toEqual([]);
    expect(await audits(root.id, "account.reauth.failed")).toEqual([]);
  });
});
