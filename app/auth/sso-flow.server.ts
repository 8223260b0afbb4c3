import { randomBytes, randomUUID } from "node:crypto";
import * as client from "openid-client";
import { createCookie, type RouterContextProvider, redirect } from "react-router";
import { roleGrants } from "../access/role-cache.server";
import { audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { emailField } from "../email-address";
import { baseUrl, secureCookies, sessionSecrets } from "../env.server";
import { isOutboundRefusal, outboundFetch } from "../http/outbound.server";
import { clientIp } from "../http/request-info.server";
import { safeRedirectPath, tooManyRequests } from "../http/responses";
import { hit } from "../security/rate-limit.server";
import { decryptSecret } from "../security/secret-box.server";
import { afterTakeOver, isUnproven, takeOverUnproven } from "./account-takeover.server";
import { invalidateSessions } from "./session-cache.server";
import { finishOidcSignIn } from "./sign-in.server";
import { holdPendingLink, linkIdentity, type ProofReason, proofNeeded } from "./sso-link.server";
import type { SsoRefusal } from "./sso-messages";
import { domainOf, domainsOf } from "./sso-providers.server";
import { isLoopbackHttp } from "./sso-schema";

// Single sign-on over OpenID Connect with PKCE, `state` and `nonce` (decision 020).

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

const FLOW_SECONDS = 600;
const SCOPE = "openid email profile";

let flowCookie: ReturnType<typeof createCookie> | undefined;
function cookie() {
  flowCookie ??= createCookie("__oidc_flow", {
    httpOnly: true,
    // The provider sends the browser back with a top-level GET: lax cookies go along.
    sameSite: "lax",
    secure: secureCookies(),
    path: "/auth/oidc",
    secrets: sessionSecrets(),
    maxAge: FLOW_SECONDS,
  });
  return flowCookie;
}

function callbackUrl(slug: string): string {
  return `${baseUrl()}/auth/oidc/${encodeURIComponent(slug)}/callback`;
}

type ProviderRow = {
  id: string;
  slug: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  allowed_domains: string;
  role_id: string | null;
  updated_at: string;
};

function findProvider(slug: string): Promise<ProviderRow | undefined> {
  return db()
    .selectFrom("oidc_provider")
    .select(["id", "slug", "name", "issuer", "client_id", "client_secret", "allowed_domains", "role_id"])
    .select("updated_at")
    .where("slug", "=", slug)
    .executeTakeFirst();
}

// A failed discovery is remembered for a minute, so visitors cannot make the server fetch an issuer again and again.
const configs = new Map<string, { config: client.Configuration; at: number }>();
const failures = new Map<string, { error: unknown; at: number }>();
const DISCOVERY_FAILURE_SECONDS = 60;

async function configurationOf(provider: ProviderRow): Promise<client.Configuration> {
  const key = `${provider.id}|${provider.updated_at}`;
  const cached = configs.get(key);
  if (cached && Date.now() - cached.at < FLOW_SECONDS * 1000) return cached.config;
  const failed = failures.get(key);
  if (failed && Date.now() - failed.at < DISCOVERY_FAILURE_SECONDS * 1000) throw failed.error;
  const issuer = new URL(provider.issuer);
  let config: client.Configuration;
  try {
    config = await client.discovery(
      issuer,
      provider.client_id,
      decryptSecret(provider.client_secret),
      undefined,
      {
        execute: isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : [],
        timeout: 10,
        // Public addresses only (app/http/outbound.server.ts).
        [client.customFetch]: outboundFetch,
      },
    );
  } catch (error) {
    for (const old of failures.keys()) if (old.startsWith(`${provider.id}|`)) failures.delete(old);
    failures.set(key, { error, at: Date.now() });
    throw error;
  }
  for (const old of configs.keys()) if (old.startsWith(`${provider.id}|`)) configs.delete(old);
  failures.delete(key);
  configs.set(key, { config, at: Date.now() });
  return config;
}

export function resetDiscoveryCache() {
  configs.clear();
  failures.clear();
}

function refuse(code: SsoRefusal, headers?: HeadersInit): Response {
  return redirect(`/login?sso=${code}`, { headers });
}

async function limited(args: Args, step: "start" | "callback") {
  const result = await hit("loginPerIp", `oidc-${step}:${clientIp(args.context)}`);
  return result.ok ? null : tooManyRequests(result.retryAfterSeconds);
}

export async function startSingleSignOn(args: Args, slug: string): Promise<Response> {
  const tooMany = await limited(args, "start");
  if (tooMany) return tooMany;
  const provider = await findProvider(slug);
  if (!provider) return refuse("unavailable");
  let config: client.Configuration;
  try {
    config = await configurationOf(provider);
  } catch {
    return refuse("unavailable");
  }
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const id = randomBytes(32).toString("base64url");
  const redirectTo = safeRedirectPath(new URL(args.request.url).searchParams.get("redirectTo"));
  await db().deleteFrom("oidc_flow").where("expires_at", "<", now()).execute();
  await db()
    .insertInto("oidc_flow")
    .values({
      id,
      provider_id: provider.id,
      state,
      nonce,
      code_verifier: verifier,
      redirect_to: redirectTo,
      expires_at: new Date(Date.now() + FLOW_SECONDS * 1000).toISOString(),
    })
    .execute();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(provider.slug),
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return redirect(url.toString(), { headers: { "Set-Cookie": await cookie().serialize(id) } });
}

type Claims = { sub: string; email?: unknown; email_verified?: unknown; name?: unknown };

/** A second callback with the same cookie finds nothing. */
async function claimFlow(request: Request, providerId: string) {
  const id: unknown = await cookie().parse(request.headers.get("Cookie"));
  if (typeof id !== "string" || !id) return null;
  const row = await db().selectFrom("oidc_flow").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return null;
  const gone = await db().deleteFrom("oidc_flow").where("id", "=", id).executeTakeFirst();
  if (Number(gone.numDeletedRows) !== 1) return null;
  if (row.provider_id !== providerId || row.expires_at <= now()) return null;
  return row;
}

export async function finishSingleSignOn(args: Args, slug: string): Promise<Response> {
  const tooMany = await limited(args, "callback");
  if (tooMany) return tooMany;
  const clear = { "Set-Cookie": await cookie().serialize("", { maxAge: 0 }) };
  const provider = await findProvider(slug);
  const fail = async (reason: SsoRefusal, details: Record<string, unknown> = {}) => {
    await audit(args, {
      action: "auth.login.failed",
      details: { method: "oidc", provider: provider?.slug ?? null, reason, ...details },
    });
    return refuse(reason, clear);
  };
  if (!provider) return fail("unavailable");
  const flow = await claimFlow(args.request, provider.id);
  if (!flow) return fail("expired");

  let claims: Claims;
  try {
    const config = await configurationOf(provider);
    const current = new URL(callbackUrl(provider.slug));
    current.search = new URL(args.request.url).search;
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.code_verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims()!;
    claims = { ...idClaims };
    if (claims.email === undefined && config.serverMetadata().userinfo_endpoint)
      claims = {
        ...(await client.fetchUserInfo(config, tokens.access_token, idClaims.sub)),
        sub: idClaims.sub,
      };
  } catch (error) {
    if (isOutboundRefusal(error)) return fail("outbound_refused", { error: "outbound_refused" });
    const code = (error as { code?: unknown; error?: unknown }).error ?? (error as { code?: unknown }).code;
    return fail("failed", { error: typeof code === "string" ? code : "unknown" });
  }

  // The same address rule as every form (so no "a@evil@corp.example").
  const parsedEmail = emailField.safeParse(claims.email);
  const email = parsedEmail.success ? parsedEmail.data : "";
  if (!email || claims.email_verified !== true) return fail("unverified", { subject: claims.sub });
  if (!domainsOf(provider).includes(domainOf(email))) return fail("domain", { email });

  const account = await accountFor(
    args,
    provider,
    claims.sub,
    email,
    typeof claims.name === "string" ? claims.name : "",
  );
  if (account.status !== "active") return fail("disabled", { email });
  if (account.conflict) return fail("conflict", { email, subject: claims.sub });
  if (account.proof)
    return holdPendingLink(
      args,
      {
        userId: account.id,
        email: account.email,
        providerId: provider.id,
        providerSlug: provider.slug,
        subject: claims.sub,
        reason: account.proof,
        redirectTo: flow.redirect_to,
      },
      new Headers(clear),
    );
  await db().updateTable("user").set({ last_login_at: now() }).where("id", "=", account.id).execute();
  return finishOidcSignIn(args, account, {
    provider: provider.slug,
    factors: 1,
    redirectTo: flow.redirect_to,
    clearCookie: clear["Set-Cookie"],
  });
}

type Account = {
  id: string;
  email: string;
  status: "active" | "disabled";
  conflict?: boolean;
  proof?: ProofReason;
};

async function accountFor(args: Args, provider: ProviderRow, subject: string, email: string, name: string) {
  let takenOver: string | null = null;
  let endedSessions: string[] = [];
  let linkedNow = false;
  const grants = await roleGrants();
  return db()
    .transaction()
    .execute(async (tx): Promise<Account> => {
      const linked = await tx
        .selectFrom("oidc_identity")
        .innerJoin("user", "user.id", "oidc_identity.user_id")
        .select(["user.id", "user.email", "user.status"])
        .where("oidc_identity.provider_id", "=", provider.id)
        .where("oidc_identity.subject", "=", subject)
        .executeTakeFirst();
      if (linked) return linked;
      const ts = now();
      const existing = await tx
        .selectFrom("user")
        .select(["id", "email", "status", "email_verified", "pending_registration"])
        .where("email", "=", email)
        .executeTakeFirst();
      if (existing && existing.status !== "active") return existing;
      // A different subject with the same address does not take over the linked account.
      if (existing) {
        const other = await tx
          .selectFrom("oidc_identity")
          .select("subject")
          .where("provider_id", "=", provider.id)
          .where("user_id", "=", existing.id)
          .executeTakeFirst();
        if (other) return { ...existing, conflict: true };
        // A provider proves the address, not the account: a protected account needs its holder's proof once.
        const proof = await proofNeeded(tx, existing, provider.id, grants);
        if (proof) return { ...existing, proof };
      }
      let account: Account;
      if (existing) {
        account = existing;
        // Whoever registered the address never proved it: the provider's proof wins (account-takeover.server.ts).
        if (isUnproven(existing)) {
          endedSessions = await takeOverUnproven(tx, args, existing.id, {
            kind: "sso",
            actor: { id: existing.id, email },
            name: provider.slug,
          });
          takenOver = existing.id;
        }
        linkedNow = true;
      } else {
        const id = randomUUID();
        await tx
          .insertInto("user")
          .values({
            id,
            name: name.trim().slice(0, 100) || email.slice(0, email.indexOf("@")),
            email,
            email_verified: 1,
            password_hash: null,
            created_at: ts,
            updated_at: ts,
          })
          .execute();
        const role = provider.role_id
          ? await tx.selectFrom("role").select("id").where("id", "=", provider.role_id).executeTakeFirst()
          : undefined;
        if (role) await tx.insertInto("user_role").values({ user_id: id, role_id: role.id }).execute();
        await audit(
          args,
          {
            action: "sso.account.created",
            actor: { id, email },
            target: { type: "user", id },
            details: { provider: provider.slug, subject, roleId: role?.id ?? null },
          },
          tx,
        );
        account = { id, email, status: "active" };
      }
      if (linkedNow)
        await linkIdentity(tx, args, {
          userId: account.id,
          email,
          providerId: provider.id,
          providerSlug: provider.slug,
          subject,
          proof: "automatic",
        });
      else
        await tx
          .insertInto("oidc_identity")
          .values({ provider_id: provider.id, subject, user_id: account.id, created_at: ts })
          .execute();
      return account;
    })
    .finally(async () => {
      await invalidateSessions();
      if (takenOver) await afterTakeOver(takenOver, endedSessions);
    });
}
