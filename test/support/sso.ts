import { expect } from "vitest";
import { roleGrants } from "../../app/access/role-cache.server";
import { createProvider } from "../../app/auth/sso-providers.server";
import { db } from "../../app/db.server";
import { resetEnvCache } from "../../app/env.server";
import { loader as startLoader } from "../../app/routes/auth.oidc.$provider";
import { loader as callbackLoader } from "../../app/routes/auth.oidc.$provider.callback";
import { args, context, ORIGIN, request, run, setupDatabase } from "../helpers";
import { followToCallback, type Idp, type IdpUser, startIdp } from "./oidc-idp";

// The single sign-on tests' shared setup (app/auth/sso*.test.ts): a real OpenID Connect provider
// (oidc-provider) on 127.0.0.1, which the server may reach only because these tests open loopback
// (app/http/outbound.server.ts), registered as the provider "corp" for corp.test. In a test file:
//
//   beforeAll(setupSso, 60_000);
//   afterAll(teardownSso);
//   beforeEach(() => resetRateLimits());

/** Sets OUTBOUND_ALLOW_PRIVATE for what follows (undefined: unset). */
export function allowPrivate(value: string | undefined) {
  if (value === undefined) delete process.env.OUTBOUND_ALLOW_PRIVATE;
  else process.env.OUTBOUND_ALLOW_PRIVATE = value;
  resetEnvCache();
}
export const LOOPBACK = "127.0.0.0/8";

export let idp: Idp;
export let root: { id: string; email: string; isSuperAdmin: boolean };
export let managerRoleId: string;
let ipCounter = 0;
export const nextIp = () => `198.51.100.${(++ipCounter % 250) + 1}`;

/** The suite's setup (beforeAll): loopback opened, the identity provider, the "corp" provider. */
export async function setupSso() {
  allowPrivate(LOOPBACK);
  await setupDatabase();
  idp = await startIdp({
    redirectUris: [
      `${ORIGIN}/auth/oidc/corp/callback`,
      `${ORIGIN}/auth/oidc/strict/callback`,
      `${ORIGIN}/auth/oidc/other/callback`,
    ],
  });
  const grants = [...(await roleGrants()).values()];
  managerRoleId = grants.find((g) => g.name === "manager")!.id;
  const admin = await db()
    .selectFrom("user")
    .select(["id", "email"])
    .where("email", "=", "root@example.test")
    .executeTakeFirstOrThrow();
  root = { ...admin, isSuperAdmin: true };
  const origin = { request: request("/dashboard/settings/sso"), context: context() };
  await createProvider(
    root,
    {
      name: "Corp",
      slug: "corp",
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      domains: ["corp.test"],
      roleId: managerRoleId,
      passwordAllowed: true,
    },
    origin,
  );
}

/** The suite's teardown (afterAll). */
export async function teardownSso() {
  allowPrivate(undefined);
  await idp?.close();
}

/** Starts at /auth/oidc/:slug, goes through the provider as `user`, returns the callback and the flow cookie. */
export async function throughProvider(user: IdpUser, slug = "corp", redirectTo?: string) {
  idp.user = user;
  const path = `/auth/oidc/${slug}${redirectTo ? `?redirectTo=${encodeURIComponent(redirectTo)}` : ""}`;
  const start = await run(() => startLoader(args(request(path), { provider: slug }, context(nextIp()))));
  expect(start.status).toBe(302);
  const location = start.headers.get("Location")!;
  expect(location.startsWith(idp.issuer)).toBe(true);
  const auth = new URL(location);
  expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
  expect(auth.searchParams.get("state")).toBeTruthy();
  expect(auth.searchParams.get("nonce")).toBeTruthy();
  const flowCookie = start.headers.get("Set-Cookie")!.split(";")[0]!;
  expect(flowCookie).toMatch(/^__oidc_flow=/);
  const callback = await followToCallback(location, ORIGIN);
  return { callback, flowCookie };
}

export function callback(url: string, cookie: string | undefined, slug = "corp", ip = nextIp()) {
  const path = url.slice(ORIGIN.length);
  return run(() => callbackLoader(args(request(path, { cookie }), { provider: slug }, context(ip))));
}

export async function signIn(user: IdpUser, slug = "corp") {
  const { callback: url, flowCookie } = await throughProvider(user, slug);
  return callback(url, flowCookie, slug);
}

/** What a sign-in may change: accounts, their roles, links and sessions. */
export async function accounts() {
  const [users, roles, links, sessions] = await Promise.all([
    db().selectFrom("user").selectAll().orderBy("id").execute(),
    db().selectFrom("user_role").selectAll().orderBy("user_id").orderBy("role_id").execute(),
    db().selectFrom("oidc_identity").selectAll().orderBy("subject").execute(),
    db().selectFrom("session").select(["id", "user_id"]).orderBy("id").execute(),
  ]);
  return { users, roles, links, sessions };
}

export function sessionCookieOf(out: { headers: Headers }) {
  return out.headers
    .get("Set-Cookie")
    ?.split(/,(?=\s*__)/)
    .find((c) => c.trim().startsWith("__session="));
}

export async function failures() {
  return db().selectFrom("audit_log").selectAll().where("action", "=", "auth.login.failed").execute();
}

export async function expectRefused(out: Awaited<ReturnType<typeof callback>>, code: string) {
  expect(out.status).toBe(302);
  expect(out.headers.get("Location")).toBe(`/login?sso=${code}`);
  expect(sessionCookieOf(out)).toBeUndefined();
  const last = (await failures()).at(-1)!;
  expect(JSON.parse(last.details!)).toMatchObject({ method: "oidc", reason: code });
}
