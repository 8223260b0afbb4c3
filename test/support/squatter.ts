import { randomBytes, randomUUID } from "node:crypto";
import { expect } from "vitest";
import { authenticateBearer, hashApiToken } from "../../app/auth/api-tokens.server";
import { getSessionUser } from "../../app/auth/session.server";
import { db } from "../../app/db.server";
import { settleDeliveries } from "../../app/mail/deliveries.server";
import { action as loginAction } from "../../app/routes/login/route";
import { action as registerAction } from "../../app/routes/register";
import { args, context, ORIGIN, request, run, sessionCookieFor } from "../helpers";
import { formRequest } from "./forms";

// The attacker of SECURITY-PLAYBOOK §1: registers an address before its trusted source (a
// directory, an identity provider, an invitation, an import) claims it, and holds every kind of
// credential an unverified account can carry (an admin's correction of a used account's address
// leaves its sessions, tokens and factors). After the claim none of it may work.

const ATTACKER_PASSWORD = "squatter's own passphrase";

let ip = 0;
const nextIp = () => `198.51.100.${(ip++ % 250) + 1}`;

export type Squatter = { id: string; email: string; cookie: string; apiToken: string };

/** Registers `email` through POST /register, then gives the account a session, an API token and factors. */
export async function registerAsAttacker(email: string): Promise<Squatter> {
  const req = formRequest("/register", { name: "Squatter", email, password: ATTACKER_PASSWORD });
  const out = await run(() => registerAction(args(req, {}, context(nextIp()))));
  await settleDeliveries();
  expect(out.status).toBe(302);
  const { id } = await db()
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .where("pending_registration", "=", 1)
    .executeTakeFirstOrThrow();
  const cookie = await sessionCookieFor(id);
  const apiToken = `dash_${randomBytes(32).toString("base64url")}`;
  const ts = new Date().toISOString();
  const later = new Date(Date.now() + 86_400_000).toISOString();
  await db()
    .insertInto("api_token")
    .values({
      id: randomUUID(),
      user_id: id,
      name: "squatter",
      token_hash: hashApiToken(apiToken),
      permissions: JSON.stringify(["dashboard.access"]),
      expires_at: later,
      created_at: ts,
      last_used_at: null,
      revoked_at: null,
      revoked_by: null,
    })
    .execute();
  await db()
    .insertInto("passkey")
    .values({
      id: randomUUID(),
      user_id: id,
      credential_id: `squatter-${randomUUID()}`,
      public_key: "AAAA",
      counter: 0,
      transports: "internal",
      name: "Squatter's key",
      backed_up: 0,
      created_at: ts,
      last_used_at: null,
    })
    .execute();
  await db()
    .insertInto("user_two_factor")
    .values({ user_id: id, secret: "v1:x", confirmed_at: ts, last_step: null, created_at: ts })
    .execute();
  await db()
    .insertInto("two_factor_recovery_code")
    .values({ id: randomUUID(), user_id: id, code_hash: "squatter", used_at: null, created_at: ts })
    .execute();
  await db()
    .insertInto("known_device")
    .values({
      id: randomUUID(),
      user_id: id,
      device_hash: `squatter-${randomUUID()}`,
      ua_family: "Firefox",
      user_agent: null,
      network: "198.51.100.0/24",
      first_seen_at: ts,
      last_seen_at: ts,
      alerted_at: null,
    })
    .execute();
  // Before the claim the planted session and token do work: the checks after it can fail.
  expect(await sessionUserOf(cookie)).not.toBeNull();
  expect((await authenticateBearer(bearer(apiToken))).user?.id).toBe(id);
  return { id, email, cookie, apiToken };
}

const bearer = (token: string) =>
  new Request(`${ORIGIN}/api/tasks`, { headers: { Authorization: `Bearer ${token}` } });
const sessionUserOf = (cookie: string) =>
  getSessionUser({ request: request("/dashboard", { cookie }), context: context() });

/** The status of POST /login for `email` with the attacker's password (or `password`). */
export async function attackerSignIn(email: string, password = ATTACKER_PASSWORD): Promise<number> {
  const req = formRequest("/login", { email, password });
  return (await run(() => loginAction(args(req, {}, context(nextIp()))))).status;
}

/**
 * After a trusted source claimed the squatter's account: the password is refused (400), the
 * session and API token are dead, no factor, device or open link is left, the account is verified
 * and no longer pending, and the takeover is audited as done by `source`.
 */
export async function expectSquatterLockedOut(squatter: Squatter, source: string) {
  expect(await attackerSignIn(squatter.email)).toBe(400);
  expect(await sessionUserOf(squatter.cookie)).toBeNull();
  const bearerOutcome = await authenticateBearer(bearer(squatter.apiToken));
  expect(bearerOutcome.refusal?.status).toBe(401);
  const user = await db()
    .selectFrom("user")
    .selectAll()
    .where("id", "=", squatter.id)
    .executeTakeFirstOrThrow();
  expect(user).toMatchObject({
    email_verified: 1,
    pending_registration: 0,
    registration_binding: null,
  });
  // Sessions and devices: the squatter's are checked (the source's own sign-in may add new ones).
  for (const table of [
    "passkey",
    "user_two_factor",
    "two_factor_recovery_code",
    "oidc_pending_link",
  ] as const) {
    const left = await db().selectFrom(table).select("user_id").where("user_id", "=", squatter.id).execute();
    expect(left, table).toEqual([]);
  }
  const devices = await db()
    .selectFrom("known_device")
    .select("id")
    .where("user_id", "=", squatter.id)
    .where("device_hash", "like", "squatter-%")
    .execute();
  expect(devices).toEqual([]);
  const liveTokens = await db()
    .selectFrom("api_token")
    .select("id")
    .where("user_id", "=", squatter.id)
    .where("revoked_at", "is", null)
    .execute();
  expect(liveTokens).toEqual([]);
  // The registrant's verification link carried their password: it is spent.
  const openLinks = await db()
    .selectFrom("user_token")
    .select("kind")
    .where("user_id", "=", squatter.id)
    .where("kind", "=", "verify-email")
    .where("used_at", "is", null)
    .execute();
  expect(openLinks).toEqual([]);
  const audited = await db()
    .selectFrom("audit_log")
    .select("details")
    .where("action", "=", "account.taken_over")
    .where("target_id", "=", squatter.id)
    .execute();
  expect(audited.map((a) => JSON.parse(a.details ?? "{}").source)).toEqual([source]);
  return user;
}
