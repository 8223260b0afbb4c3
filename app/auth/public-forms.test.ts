import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { args, context, createUser, request, run, setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { settleDeliveries } from "../mail/deliveries.server";
import { action as inboxAction, loader as inboxLoader } from "../routes/check-inbox";
import { action as forgotAction } from "../routes/forgot-password";
import { action as registerAction } from "../routes/register";
import { action as resendAction } from "../routes/resend-verification";
import { resetRateLimits } from "../security/rate-limit.server";

// Public account forms answer before any mail is sent, and "check your inbox" tells how the
// delivery of that very request went, without telling whether the address has an account.

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

let ip = 0;
function post(path: string, action: (a: never) => unknown, values: Record<string, string>) {
  const req = formRequest(path, values);
  return run(() => action(args(req, {}, context(`198.51.100.${++ip}`))));
}

async function inbox(location: string | null) {
  const out = await run(() => inboxLoader(args(request(location!))));
  expect(out.status).toBe(200);
  return out.body as { which: string; delivery: { state: string } | null };
}

const LOCATION = /^\/check-inbox\?for=(register|reset|resend)&d=[A-Za-z0-9_-]{22,}$/;

describe("sending off the request path", () => {
  it.each([
    ["/register", "new", registerAction, { name: "Held", password: "a fine long passphrase" }],
    ["/register", "verified", registerAction, { name: "Held", password: "a fine long passphrase" }],
    ["/forgot-password", "verified", forgotAction, {}],
    ["/resend-verification", "unverified", resendAction, {}],
  ] as const)(
    "%s (%s address) answers while the provider is still holding the mail",
    async (path, kind, action, extra) => {
      const email =
        kind === "new"
          ? `held-${++ip}@example.test`
          : (await createUser({ roles: ["user"], verified: kind === "verified" })).email;
      postmark.fake.hold();
      const out = await post(path, action as never, { email, ...extra });
      // The answer is here although the provider has not answered (nor even received) the mail yet.
      expect(out.status).toBe(302);
      const location = out.headers.get("Location");
      expect(location).toMatch(LOCATION);
      expect(postmark.fake.messages).toHaveLength(0);
      expect((await inbox(location)).delivery).toEqual({ state: "sending" });
      await vi.waitFor(() => expect(postmark.fake.heldCount).toBe(1));
      expect((await inbox(location)).delivery).toEqual({ state: "sending" });

      postmark.fake.release();
      await settleDeliveries();
      expect(postmark.fake.messages.map((m) => m.To)).toEqual([email]);
      expect((await inbox(location)).delivery).toEqual({ state: "sent" });
    },
  );
});

describe("delivery state on the check-inbox page", () => {
  it("goes sending → failed when the provider refuses; try again sends it and shows sent", async () => {
    postmark.fake.failNext({ ErrorCode: 406, Message: "Inactive recipient." });
    const email = "refused@example.test";
    const out = await post("/register", registerAction, {
      name: "R",
      email,
      password: "a fine long passphrase",
    });
    const location = out.headers.get("Location");
    expect(location).toMatch(LOCATION);
    await settleDeliveries();
    expect(await inbox(location)).toEqual({ which: "register", delivery: { state: "failed" } });
    expect(postmark.fake.messages).toHaveLength(0);

    const d = new URL(location!, "http://x").searchParams.get("d")!;
    const retry = await post("/check-inbox", inboxAction, { intent: "retry", d });
    expect(retry.status).toBe(302);
    const again = retry.headers.get("Location");
    expect(again).toMatch(LOCATION);
    expect(again).not.toBe(location);
    await settleDeliveries();
    expect((await inbox(again)).delivery).toEqual({ state: "sent" });
    expect(postmark.fake.messages.map((m) => [m.To, m.Tag])).toEqual([[email, "verification"]]);
    // The old request keeps its own state.
    expect((await inbox(location)).delivery).toEqual({ state: "failed" });
  });

  it("refuses to retry a delivery that did not fail, and an unknown id, changing nothing", async () => {
    const out = await post("/forgot-password", forgotAction, { email: "nobody@example.test" });
    await settleDeliveries();
    const d = new URL(out.headers.get("Location")!, "http://x").searchParams.get("d")!;
    const before = await db().selectFrom("mail_delivery").selectAll().execute();
    for (const id of [d, "not-a-delivery-id-at-all-000", ""]) {
      const retry = await post("/check-inbox", inboxAction, { intent: "retry", d: id });
      expect(retry.status).toBe(400);
    }
    expect(await db().selectFrom("mail_delivery").selectAll().execute()).toEqual(before);
    expect(postmark.fake.messages).toHaveLength(0);
  });

  it("answers the same shape for a new and an existing address; the owner gets 'you already have an account'", async () => {
    const owner = await createUser({ roles: ["user"] });
    const answers = [];
    for (const email of ["brand-new@example.test", owner.email]) {
      const out = await post("/register", registerAction, {
        name: "Same",
        email,
        password: "a fine long passphrase",
      });
      await settleDeliveries();
      answers.push({
        status: out.status,
        location: out.headers.get("Location")!.replace(/d=.*/, "d=ID"),
        page: await inbox(out.headers.get("Location")),
      });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toEqual({
      status: 302,
      location: "/check-inbox?for=register&d=ID",
      page: { which: "register", delivery: { state: "sent" } },
    });
    const [notice] = postmark.fake.messages.filter((m) => m.To === owner.email);
    expect(notice?.Tag).toBe("notification");
    expect(notice?.Subject).toMatch(/already have an account/i);
  });

  it("reports 'sent' for forgot-password and resend with unknown addresses, and sends nothing", async () => {
    for (const [path, action] of [
      ["/forgot-password", forgotAction],
      ["/resend-verification", resendAction],
    ] as const) {
      const out = await post(path, action as never, { email: "ghost@example.test" });
      await settleDeliveries();
      expect((await inbox(out.headers.get("Location"))).delivery).toEqual({ state: "sent" });
    }
    expect(postmark.fake.messages).toHaveLength(0);
  });
});

describe("a provider that is refusing", () => {
  it("shows an unknown address the same outcome as the last real send, so 'failed' tells nothing", async () => {
    postmark.fake.failAlways({ ErrorCode: 406, Message: "Inactive recipient." });
    try {
      const known = await post("/forgot-password", forgotAction, {
        email: (await createUser({ roles: ["user"] })).email,
      });
      await settleDeliveries();
      expect((await inbox(known.headers.get("Location"))).delivery).toEqual({ state: "failed" });
      const unknown = await post("/forgot-password", forgotAction, { email: "ghost-2@example.test" });
      await settleDeliveries();
      expect((await inbox(unknown.headers.get("Location"))).delivery).toEqual({ state: "failed" });
    } finally {
      postmark.fake.failAlways(null);
    }
    // Once the provider delivers again, so do the look-alikes.
    await post("/forgot-password", forgotAction, { email: (await createUser({ roles: ["user"] })).email });
    await settleDeliveries();
    const unknown = await post("/forgot-password", forgotAction, { email: "ghost-3@example.test" });
    await settleDeliveries();
    expect((await inbox(unknown.headers.get("Location"))).delivery).toEqual({ state: "sent" });
  });
});

describe("a delivery whose process died", () => {
  it("reads as failed once it has been sending for minutes, and can be tried again", async () => {
    postmark.fake.hold();
    const out = await post("/forgot-password", forgotAction, {
      email: (await createUser({ roles: ["user"] })).email,
    });
    const location = out.headers.get("Location");
    const d = new URL(location!, "http://x").searchParams.get("d")!;
    expect((await inbox(location)).delivery).toEqual({ state: "sending" });
    await db()
      .updateTable("mail_delivery")
      .set({ created_at: new Date(Date.now() - 3 * 60 * 1000).toISOString() })
      .where("id", "=", d)
      .execute();
    expect((await inbox(location)).delivery).toEqual({ state: "failed" });
    const retry = await post("/check-inbox", inboxAction, { intent: "retry", d });
    expect(retry.status).toBe(302);
    postmark.fake.release();
    await settleDeliveries();
    expect((await inbox(retry.headers.get("Location"))).delivery).toEqual({ state: "sent" });
    expect(postmark.fake.messages.map((m) => m.Tag)).toEqual(["reset-password", "reset-password"]);
  });
});

describe("check-inbox page", () => {
  it.each(["__proto__", "constructor", "toString", "nonsense", ""])(
    "answers 400 for for=%s, and shows the default text without it",
    async (which) => {
      const out = await run(() => inboxLoader(args(request(`/check-inbox?for=${which}`))));
      expect(out).toMatchObject({ status: 400, body: { message: expect.stringMatching(/not valid/) } });
      expect(await inbox("/check-inbox")).toEqual({ which: "register", delivery: null });
    },
  );

  it("shows no delivery for an unknown or malformed id", async () => {
    expect(await inbox("/check-inbox?for=reset&d=unknown-id-unknown-id-unknown")).toEqual({
      which: "reset",
      delivery: null,
    });
    expect(await inbox("/check-inbox?for=reset&d=__proto__")).toEqual({ which: "reset", delivery: null });
  });
});
