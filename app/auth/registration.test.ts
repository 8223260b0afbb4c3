import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, createUser, PASSWORD, request, run, setupDatabase } from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { settleDeliveries } from "../mail/deliveries.server";
import { loader as verifyLoader } from "../routes/api.auth.verify-email";
import { action as forgotAction } from "../routes/forgot-password";
import { action as loginAction } from "../routes/login/route";
import { action as registerAction } from "../routes/register";
import { action as resendAction } from "../routes/resend-verification";
import { action as resetAction } from "../routes/reset-password";
import { resetRateLimits } from "../security/rate-limit.server";

// Pre-registration takeover: whoever registers an address first must never end up holding the
// verified account when the address's owner registers and follows a link.

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

const ATTACKER_PASSWORD = "attacker chosen passphrase";
const OWNER_PASSWORD = "the real owner passphrase";
let ip = 0;

async function post(
  path: string,
  action: (a: never) => unknown,
  values: Record<string, string>,
  cookie?: string,
) {
  const req = formRequest(path, values, { cookie });
  const out = await run(() => action(args(req, {}, context(`198.51.100.${++ip}`))));
  await settleDeliveries();
  return out;
}

/** Follows a link, in the browser holding `cookie` (a registration binding) or in none. */
const verify = (link: string, cookie?: string) =>
  run(() => verifyLoader(args(request(link.replace(/^https?:\/\/[^/]+/, ""), { cookie }))));
const signIn = async (email: string, password: string) =>
  (await post("/login", loginAction, { email, password })).status;
const user = (email: string) =>
  db().selectFrom("user").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
const verifyLinks = (to: string) =>
  postmark.fake.messages
    .filter((m) => m.To === to && m.Tag === "verification")
    .map((m) => linkIn(m.TextBody, "/api/auth/verify-email?token="));

/** Registers from a browser (a fresh one unless `browser` is given); returns its link and cookie. */
async function registerIn(email: string, name: string, password: string, browser?: string) {
  const out = await post("/register", registerAction, { name, email, password }, browser);
  expect(out.status).toBe(302);
  const cookie = out.headers.get("Set-Cookie")?.split(";")[0];
  expect(cookie).toMatch(/^__registration=/);
  return { link: verifyLinks(email).at(-1)!, browser: cookie! };
}
const register = async (email: string, name: string, password: string) =>
  (await registerIn(email, name, password)).link;

describe("a registration for an address nobody has verified yet", () => {
  it("an attacker registering after the owner: the owner's click verifies no registrant's password, and they choose one", async () => {
    const email = "reverse@corp.test";
    const { browser: ownerBrowser } = await registerIn(email, "Owner", OWNER_PASSWORD);
    const { link: attackerLink, browser: attackerBrowser } = await registerIn(
      email,
      "Attacker",
      ATTACKER_PASSWORD,
    );
    // The newest link (carrying the attacker's password) is the one alive in the owner's inbox.
    for (const clickedIn of [ownerBrowser, undefined]) {
      if (clickedIn === undefined) {
        // Same again for a click on another device, on a second contested address.
        await registerIn("reverse2@corp.test", "Owner", OWNER_PASSWORD);
        await registerIn("reverse2@corp.test", "Attacker", ATTACKER_PASSWORD);
      }
      const address = clickedIn ? email : "reverse2@corp.test";
      const link = clickedIn ? attackerLink : verifyLinks(address).at(-1)!;
      const out = await verify(link, clickedIn);
      expect(out.status).toBe(302);
      const location = new URL(out.headers.get("Location")!, "http://x");
      expect(location.pathname).toBe("/reset-password");
      expect(location.searchParams.get("contested")).toBe("1");
      expect(await user(address)).toMatchObject({ email_verified: 1, password_hash: null });
      expect(await signIn(address, ATTACKER_PASSWORD)).toBe(400);
      expect(await signIn(address, OWNER_PASSWORD)).toBe(400);
      const chosen = await post("/reset-password", resetAction, {
        token: location.searchParams.get("token")!,
        password: OWNER_PASSWORD,
        confirm: OWNER_PASSWORD,
      });
      expect(chosen.status).toBe(302);
      expect(await signIn(address, OWNER_PASSWORD)).toBe(302);
      expect(await signIn(address, ATTACKER_PASSWORD)).toBe(400);
    }
    // Only the attacker's own browser could have applied the attacker's link; it is spent now.
    expect(await verify(attackerLink, attackerBrowser)).toMatchObject({ status: 400 });
  });

  it("registering twice from one browser is no contest: the link applies the newest password anywhere", async () => {
    const email = "twice@corp.test";
    const first = await registerIn(email, "Me", ATTACKER_PASSWORD);
    const second = await registerIn(email, "Me again", OWNER_PASSWORD, first.browser);
    expect(second.browser).toBe(first.browser);
    expect((await verify(second.link)).headers.get("Location")).toBe("/login?verified=1");
    expect(await signIn(email, OWNER_PASSWORD)).toBe(302);
    expect(await signIn(email, ATTACKER_PASSWORD)).toBe(400);
  });

  it("verifies with the credentials of the link's own registrant; the earlier registrant's link dies", async () => {
    const email = "victim@corp.test";
    const attackerLink = await register(email, "Attacker", ATTACKER_PASSWORD);
    // Before verification nobody signs in, not even with the first registrant's password.
    expect(await signIn(email, ATTACKER_PASSWORD)).toBe(400);

    const { link: ownerLink, browser: ownerBrowser } = await registerIn(email, "Owner", OWNER_PASSWORD);
    expect(ownerLink).not.toBe(attackerLink);
    expect(await db().selectFrom("user").select("id").where("email", "=", email).execute()).toHaveLength(1);

    // The owner's registration spent the attacker's link: clicked now, it verifies nothing.
    expect(await verify(attackerLink)).toMatchObject({ status: 400, body: { reason: "used" } });
    expect((await user(email)).email_verified).toBe(0);

    const done = await verify(ownerLink, ownerBrowser);
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/login?verified=1");
    expect(await user(email)).toMatchObject({ email_verified: 1, name: "Owner" });
    expect(await signIn(email, ATTACKER_PASSWORD)).toBe(400);
    expect(await signIn(email, OWNER_PASSWORD)).toBe(302);
    // And once verified, no leftover link can change the credentials again.
    expect(await verify(attackerLink)).toMatchObject({ status: 400 });
    expect(await signIn(email, OWNER_PASSWORD)).toBe(302);
  });

  it("a resend carries the newest registrant's credentials, so the first registrant cannot revive theirs", async () => {
    const email = "victim2@corp.test";
    await register(email, "Attacker", ATTACKER_PASSWORD);
    const { browser: ownerBrowser } = await registerIn(email, "Owner", OWNER_PASSWORD);
    // The attacker asks for a new link: it goes to the owner's inbox and carries the owner's password.
    expect((await post("/resend-verification", resendAction, { email })).status).toBe(302);
    const resent = verifyLinks(email).at(-1)!;
    expect((await verify(resent, ownerBrowser)).headers.get("Location")).toBe("/login?verified=1");
    expect(await signIn(email, ATTACKER_PASSWORD)).toBe(400);
    expect(await signIn(email, OWNER_PASSWORD)).toBe(302);
    expect((await user(email)).name).toBe("Owner");
  });

  it("a password reset by the address's owner spends the pending verification links", async () => {
    const email = "victim3@corp.test";
    const attackerLink = await register(email, "Attacker", ATTACKER_PASSWORD);
    await post("/forgot-password", forgotAction, { email });
    const resetMail = postmark.fake.messages.find((m) => m.To === email && m.Tag === "reset-password");
    const token = new URL(linkIn(resetMail?.TextBody, "/reset-password?token=")).searchParams.get("token")!;
    const reset = await post("/reset-password", resetAction, {
      token,
      password: OWNER_PASSWORD,
      confirm: OWNER_PASSWORD,
    });
    expect(reset.status).toBe(302);
    expect(await verify(attackerLink)).toMatchObject({ status: 400, body: { reason: "used" } });
    expect(await signIn(email, ATTACKER_PASSWORD)).toBe(400);
    expect(await signIn(email, OWNER_PASSWORD)).toBe(302);
  });

  it("an account that was verified once (address since changed by an admin) is never re-credentialed by a registration", async () => {
    const existing = await createUser({ roles: ["admin"], verified: false });
    await post("/register", registerAction, {
      name: "Stranger",
      email: existing.email,
      password: ATTACKER_PASSWORD,
    });
    expect(verifyLinks(existing.email)).toEqual([]);
    const [notice] = postmark.fake.messages.filter((m) => m.To === existing.email);
    expect(notice?.Tag).toBe("notification");
    const tokens = await db()
      .selectFrom("user_token")
      .selectAll()
      .where("user_id", "=", existing.id)
      .execute();
    expect(tokens).toEqual([]);
    expect((await user(existing.email)).name).not.toBe("Stranger");
    await db().updateTable("user").set({ email_verified: 1 }).where("id", "=", existing.id).execute();
    expect(await signIn(existing.email, PASSWORD)).toBe(302);
    expect(await signIn(existing.email, ATTACKER_PASSWORD)).toBe(400);
  });
});
