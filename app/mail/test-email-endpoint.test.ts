import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { TEST_MAIL_KEY, withFakePostmark } from "../../test/mail-helpers";
import { db } from "../db.server";
import { action } from "../routes/api.mail";
import { resetRateLimits } from "../security/rate-limit.server";

const postmark = withFakePostmark();
beforeAll(setupDatabase);

function send(body: string, cookie?: string) {
  const req = request("/api/mail", {
    method: "POST",
    cookie,
    body,
    headers: { "Content-Type": "application/json" },
  });
  return run(() => action(args(req)));
}

const mailTests = () => db().selectFrom("audit_log").selectAll().where("action", "=", "mail.test").execute();

describe("POST /api/mail", () => {
  it("401 without a session, 403 without settings.manage; nothing sent", async () => {
    expect(await send(JSON.stringify({ to: "a@example.test" }))).toMatchObject({
      status: 401,
      body: { error: "unauthorized" },
    });
    const manager = await signedIn(["manager"]);
    expect(await send(JSON.stringify({ to: "a@example.test" }), manager.cookie)).toMatchObject({
      status: 403,
      body: { error: "forbidden", permission: "settings.manage" },
    });
    expect(postmark.fake.messages).toHaveLength(0);
  });

  it.each([
    ["{not json"],
    [JSON.stringify({ to: "not-an-address" })],
    [JSON.stringify({})],
    [JSON.stringify({ to: 5 })],
  ])("400 for a bad body %s", async (body) => {
    const admin = await signedIn(["admin"]);
    const out = await send(body, admin.cookie);
    expect(out).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(postmark.fake.messages).toHaveLength(0);
  });

  it("sends one notification test email and answers 200 {ok, messageId}; audited", async () => {
    const admin = await signedIn(["admin"]);
    const out = await send(JSON.stringify({ to: "Ops@Example.test" }), admin.cookie);
    expect(out.status).toBe(200);
    expect(postmark.fake.messages).toHaveLength(1);
    const [m] = postmark.fake.messages;
    expect(out.body).toEqual({ ok: true, messageId: m!.MessageID, via: "postmark" });
    expect(m).toMatchObject({ To: "ops@example.test", Tag: "notification", token: TEST_MAIL_KEY });
    const audit = (await mailTests()).find((a) => a.actor_id === admin.id);
    expect(JSON.parse(audit!.details!)).toMatchObject({ ok: true, messageId: m!.MessageID });
  });

  it("answers 502 mail_failed with the provider's message", async () => {
    const admin = await signedIn(["super_admin"]);
    postmark.fake.failNext({
      ErrorCode: 10,
      Message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid.",
      status: 401,
    });
    const out = await send(JSON.stringify({ to: "ops@example.test" }), admin.cookie);
    expect(out).toMatchObject({
      status: 502,
      body: {
        error: "mail_failed",
        message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid.",
      },
    });
    const audit = (await mailTests()).find((a) => a.actor_id === admin.id);
    expect(JSON.parse(audit!.details!)).toMatchObject({ ok: false });
  });

  it("refuses GET with 405", async () => {
    const { loader } = await import("../routes/api.mail");
    expect(loader().status).toBe(405);
  });

  it("sends at most 5 test emails a minute per user: the 6th gets 429 with Retry-After and sends nothing", async () => {
    await resetRateLimits();
    const admin = await signedIn(["admin"]);
    const before = postmark.fake.messages.length;
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push(await send(JSON.stringify({ to: "t@example.test" }), admin.cookie));
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[5]).toMatchObject({ status: 429, body: { error: "rate_limited" } });
    expect(Number(answers[5]!.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(postmark.fake.messages.length - before).toBe(5);
    // Another admin is not held up by the first one's sends.
    const other = await signedIn(["admin"]);
    expect((await send(JSON.stringify({ to: "t@example.test" }), other.cookie)).status).toBe(200);
  });
});
