import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, createUser, PASSWORD, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { getPage, pathOf, postPublicForm } from "../../test/support/public-forms";
import { db } from "../db.server";
import { action as forgotAction } from "../routes/forgot-password";
import { action as loginAction } from "../routes/login/route";
import { action as resetAction, loader as resetLoader } from "../routes/reset-password";
import { resetRateLimits } from "../security/rate-limit.server";
import { authenticateBearer, createApiToken } from "./api-tokens.server";
import { getSessionUser } from "./session.server";
import { hashToken } from "./tokens.server";

// Forgot and reset password by email (app/auth/password-reset.server.ts): the same answer for
// every address, a one-hour single-use link, and a reset that takes the account back.

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

const NEW_PASSWORD = "a brand new passphrase";
const mailTo = (to: string) => postmark.fake.messages.filter((m) => m.To === to);

describe("forgot and reset password", () => {
  it("answers the same for unknown addresses and sends nothing", async () => {
    const out = await postPublicForm("/forgot-password", forgotAction, { email: "ghost@example.test" });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toMatch(/^\/check-inbox\?for=reset&d=/);
    expect(postmark.fake.messages).toHaveLength(0);
  });

  it("mails a one-hour link; the reset ends every session and the link works once", async () => {
    const user = await createUser({ roles: ["user"] });
    const cookie = await sessionCookieFor(user.id);
    const out = await postPublicForm("/forgot-password", forgotAction, { email: user.email });
    expect(out.headers.get("Location")).toMatch(/^\/check-inbox\?for=reset&d=/);
    const [mail] = mailTo(user.email);
    expect(mail?.Tag).toBe("reset-password");
    const link = linkIn(mail?.TextBody, "/reset-password?token=");
    const token = new URL(link).searchParams.get("token")!;
    const row = await db()
      .selectFrom("user_token")
      .selectAll()
      .where("token_hash", "=", hashToken(token))
      .executeTakeFirstOrThrow();
    const lifetime = Date.parse(row.expires_at) - Date.parse(row.created_at);
    expect(lifetime).toBe(60 * 60 * 1000);

    expect(await getPage(pathOf(link), resetLoader)).toMatchObject({ status: 200, body: { ok: true } });
    const mismatch = await postPublicForm("/reset-password", resetAction, {
      token,
      password: NEW_PASSWORD,
      confirm: "other",
    });
    expect(mismatch.status).toBe(400);
    const done = await postPublicForm("/reset-password", resetAction, {
      token,
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/login");
    expect(await getSessionUser(args(request("/dashboard", { cookie })))).toBeNull();
    expect(
      (await postPublicForm("/login", loginAction, { email: user.email, password: PASSWORD })).status,
    ).toBe(400);
    expect(
      (await postPublicForm("/login", loginAction, { email: user.email, password: NEW_PASSWORD })).status,
    ).toBe(302);

    const reused = await postPublicForm("/reset-password", resetAction, {
      token,
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(reused).toMatchObject({ status: 400, body: { reason: "used" } });
    expect(await getPage(pathOf(link), resetLoader)).toMatchObject({ status: 400, body: { reason: "used" } });
  });
});

describe("a reset by email takes the account back", () => {
  async function resetByEmail(email: string) {
    await postPublicForm("/forgot-password", forgotAction, { email });
    const link = linkIn(mailTo(email).at(-1)?.TextBody, "/reset-password?token=");
    const token = new URL(link).searchParams.get("token")!;
    return postPublicForm("/reset-password", resetAction, {
      token,
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
  }

  const bearer = (secret: string) =>
    authenticateBearer(
      new Request("http://localhost:3000/api/tasks", { headers: { Authorization: `Bearer ${secret}` } }),
    );

  it("ends every session (rows gone), API tokens answer 401, and the confirmation lists the passkeys", async () => {
    const user = await createUser({ roles: ["user"], name: "Ada" });
    await sessionCookieFor(user.id);
    await sessionCookieFor(user.id);
    const { secret } = await createApiToken(
      { id: user.id, email: user.email, isSuperAdmin: false, permissions: new Set(["dashboard.access"]) },
      { name: "script", expiresInDays: 30, permissions: ["dashboard.access"] },
      { request: request("/") },
    );
    expect((await bearer(secret)).user?.id).toBe(user.id);
    for (const [name, created] of [
      ["Laptop", "2026-03-01T10:00:00.000Z"],
      ["Unknown key", "2026-04-02T10:00:00.000Z"],
    ] as const)
      await db()
        .insertInto("passkey")
        .values({
          id: `pk-${name}-${user.id}`,
          user_id: user.id,
          credential_id: `cred-${name}-${user.id}`,
          public_key: "x",
          counter: 0,
          transports: "",
          name,
          backed_up: 0,
          created_at: created,
          last_used_at: null,
        })
        .execute();

    const done = await resetByEmail(user.email);
    expect(done.status).toBe(302);
    expect(await db().selectFrom("session").select("id").where("user_id", "=", user.id).execute()).toEqual(
      [],
    );
    const refused = await bearer(secret);
    expect(refused.user).toBeNull();
    expect(refused.refusal?.status).toBe(401);
    // Passkeys stay, and the confirmation names each with its date, so a stranger's stands out.
    expect(
      await db().selectFrom("passkey").select("id").where("user_id", "=", user.id).execute(),
    ).toHaveLength(2);
    const confirmation = mailTo(user.email).find((m) => m.Tag === "password-changed");
    expect(confirmation, "a confirmation email").toBeTruthy();
    for (const body of [confirmation!.TextBody, confirmation!.HtmlBody]) {
      expect(body).toContain("Laptop");
      expect(body).toContain("Unknown key");
      expect(body).toMatch(/Mar(ch)? 1, 2026/);
      expect(body).toMatch(/Apr(il)? 2, 2026/);
    }
  });

  it("the confirmation says so when there are no passkeys, in the account's language", async () => {
    const user = await createUser({ roles: ["user"] });
    await db().updateTable("user").set({ locale: "de" }).where("id", "=", user.id).execute();
    expect((await resetByEmail(user.email)).status).toBe(302);
    const confirmation = mailTo(user.email).find((m) => m.Tag === "password-changed");
    expect(confirmation?.Subject).toMatch(/Passwort/);
    expect(confirmation?.TextBody).toMatch(/keine Passkeys/);
  });
});
