import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, PASSWORD, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { action as profileAction } from "../routes/dashboard.settings.profile/route";
import { action as securityAction } from "../routes/dashboard.settings.security/route";
import { resetRateLimits } from "../security/rate-limit.server";

// Settings' "current password" check is a password oracle for whoever holds a session.

withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

// A password change is Security's; an address change Profile's. The limit counts across both pages.
function submit(values: Record<string, string>, cookie: string) {
  const [path, action] =
    values.intent === "email"
      ? ["/dashboard/settings/profile", profileAction]
      : ["/dashboard/settings/security", securityAction];
  const req = formRequest(path, values, { cookie });
  return run(() => action(args(req)));
}

const passwordChange = (currentPassword: string) => ({
  intent: "password",
  currentPassword,
  newPassword: "a brand new passphrase",
  confirm: "a brand new passphrase",
});

const audits = (actor: string, action: string) =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("actor_id", "=", actor)
    .where("action", "=", action as never)
    .execute();

const hashOf = async (id: string) =>
  (await db().selectFrom("user").select("password_hash").where("id", "=", id).executeTakeFirstOrThrow())
    .password_hash;

describe("re-authentication in Settings", () => {
  it("evaluates at most 5 of 20 parallel current-password guesses; the rest get 429 + Retry-After, audited", async () => {
    const u = await signedIn(["user"]);
    const before = await hashOf(u.id);
    const outs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => submit(passwordChange(`guess-${i}`), u.cookie)),
    );
    expect(outs.filter((o) => o.status === 400)).toHaveLength(5);
    const limited = outs.filter((o) => o.status === 429);
    expect(limited).toHaveLength(15);
    for (const o of limited) {
      expect(Number(o.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(o.body).toMatchObject({
        ok: false,
        intent: "password",
        formError: expect.stringMatching(/try again/i),
      });
    }
    expect(await audits(u.id, "account.reauth.failed")).toHaveLength(5);
    expect(await audits(u.id, "account.reauth.rate_limited")).toHaveLength(15);
    // The right password is refused too while the limit holds; nothing changed.
    expect((await submit(passwordChange(PASSWORD), u.cookie)).status).toBe(429);
    const email = await submit(
      { intent: "email", email: "moved@example.test", currentPassword: PASSWORD },
      u.cookie,
    );
    expect(email.status).toBe(429);
    expect(email.headers.get("Retry-After")).toBeTruthy();
    expect(await hashOf(u.id)).toBe(before);
    expect(await audits(u.id, "account.password.change")).toEqual([]);
    expect(await audits(u.id, "account.email.change_requested")).toEqual([]);
  });

  it("refunds on the right password, and counts per user", async () => {
    const u = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    for (let i = 0; i < 4; i++) expect((await submit(passwordChange("wrong"), u.cookie)).status).toBe(400);
    const ok = await submit(
      { intent: "email", email: "still-me@example.test", currentPassword: PASSWORD },
      u.cookie,
    );
    expect(ok.status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await submit(passwordChange("wrong"), u.cookie)).status).toBe(400);
    expect((await submit(passwordChange("wrong"), u.cookie)).status).toBe(429);
    expect((await submit(passwordChange("wrong"), other.cookie)).status).toBe(400);
  });
});
