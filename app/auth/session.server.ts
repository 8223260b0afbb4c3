import { randomBytes } from "node:crypto";
import { createContext, createCookie, createSessionStorage, type RouterContextProvider } from "react-router";
import type { Grant } from "../access/decide";
import { grantRowsOf, grantsOf, isLiveRow } from "../access/grant-rows.server";
import { rolesRefusing } from "../access/networks.server";
import { type AuditOrigin, audit, auditImpersonatorContext } from "../audit/audit.server";
import { db, now } from "../db.server";
import { env, secureCookies, sessionSecrets } from "../env.server";
import { registerCache } from "../events/cluster.server";
import { recheckStreams, type StreamOptions } from "../events/stream.server";
import { clientIp, isApiRequest, userAgent } from "../http/request-info.server";
import { authenticateBearer, hasAuthorization } from "./api-tokens.server";
import { resolveImpersonation } from "./impersonation-state.server";
import {
  type CachedSession,
  cachedSession,
  invalidateSessions,
  verifiedSessionId,
} from "./session-cache.server";
import { endSessions, sessionHandle } from "./session-end.server";
import { endingOf, sessionLimits, touchDue, touchSession } from "./session-policy.server";
import { twoFactorEnrolmentDue } from "./two-factor.server";

export { invalidateSessions, sessionHandle };

export type SessionUser = {
  id: string;
  name: string;
  email: string;
  roles: string[];
  /** Held over everyone (from global grants). */
  permissions: Set<string>;
  isSuperAdmin: boolean;
  /** The live grants, global and within teams: what decide() reads (app/access/decide.ts). */
  grants: Grant[];
  /** Whose network rules apply, when not `grants`' (a token's owner's roles: app/access/networks.server.ts). */
  networkGrants?: Grant[];
  mustChangePassword: boolean;
  /** Null or absent follows the browser. */
  locale?: string | null;
  twoFactorEnrolmentDue?: boolean;
  sessionId: string;
  /** An event stream closes then. */
  sessionExpiresAt: string;
  /** The super admin really at the keyboard ("View as"); account changes refuse while it is set. */
  impersonator?: {
    id: string;
    email: string;
    until?: string;
  } | null;
  /** "token" when a personal API token stands for the owner (/api/* only). */
  via?: "session" | "token";
};

type SessionData = { userId: string; ip: string | null; userAgent: string | null };

const RENEW_WHEN_LEFT = 0.5; // renew once half the lifetime has passed (sliding expiry)

function maxAgeSeconds() {
  return Math.round(env().SESSION_MAX_AGE_DAYS * 86400);
}

let cookie: ReturnType<typeof createCookie> | undefined;
function sessionCookie() {
  if (!cookie) {
    cookie = createCookie("__session", {
      httpOnly: true,
      sameSite: "lax",
      secure: secureCookies(),
      path: "/",
      secrets: sessionSecrets(),
      maxAge: maxAgeSeconds(),
    });
  }
  return cookie;
}

let storage: ReturnType<typeof createSessionStorage<SessionData>> | undefined;
function sessionStorage() {
  if (!storage) {
    storage = createSessionStorage<SessionData>({
      cookie: sessionCookie(),
      async createData(data, expires) {
        const id = randomBytes(32).toString("base64url");
        const ts = now();
        await db()
          .insertInto("session")
          .values({
            id,
            handle: sessionHandle(id),
            user_id: data.userId!,
            data: JSON.stringify({}),
            ip: data.ip ?? null,
            user_agent: data.userAgent ?? null,
            created_at: ts,
            last_seen_at: ts,
            expires_at: (expires ?? new Date(Date.now() + maxAgeSeconds() * 1000)).toISOString(),
          })
          .execute();
        return id;
      },
      async readData(id) {
        const row = await db()
          .selectFrom("session")
          .select(["user_id", "ip", "user_agent"])
          .where("id", "=", id)
          .where("expires_at", ">", now())
          .executeTakeFirst();
        return row ? { userId: row.user_id, ip: row.ip, userAgent: row.user_agent } : null;
      },
      async updateData(id, _data, expires) {
        if (expires)
          await db()
            .updateTable("session")
            .set({ expires_at: expires.toISOString() })
            .where("id", "=", id)
            .execute();
      },
      async deleteData(id) {
        await endSessions({ id });
      },
    });
  }
  return storage;
}

export type AuthState = {
  user: SessionUser | null;
  renewCookie: string | null;
  refusal?: Response | null;
};

export const authContext = createContext<AuthState | null>(null);

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

const SESSION_COOKIE = /(?:^|;\s*)__session=([^;]*)/;

async function sessionIdFrom(request: Request): Promise<string | null> {
  const header = request.headers.get("Cookie");
  if (!header?.includes("__session=")) return null;
  const raw = SESSION_COOKIE.exec(header)?.[1];
  if (!raw) return null;
  return verifiedSessionId(raw, async (value) => {
    const id = await sessionCookie().parse(`__session=${value}`);
    return typeof id === "string" ? id : null;
  });
}

/** One query; null when ended, expired or disabled. */
async function loadSession(id: string, origin: AuditOrigin | null): Promise<CachedSession | null> {
  const rows = await db()
    .selectFrom("session")
    .innerJoin("user", "user.id", "session.user_id")
    .leftJoin("user_role", "user_role.user_id", "user.id")
    .select([
      "session.expires_at",
      "session.created_at as session_created_at",
      "session.last_seen_at",
      "user.id",
      "user.name",
      "user.email",
      "user.must_change_password",
      "user.locale",
      "user_role.role_id",
      "user_role.team_id",
      "user_role.expires_at as grant_expires_at",
      "session.impersonated_user_id",
      "session.impersonation_expires_at",
      twoFactorEnrolmentDue,
    ])
    .where("session.id", "=", id)
    .where("session.expires_at", ">", now())
    .where("user.status", "=", "active")
    .execute();
  const first = rows[0];
  if (!first) return null;
  const real: CachedSession = {
    userId: first.id,
    name: first.name,
    email: first.email,
    mustChangePassword: first.must_change_password === 1,
    locale: first.locale,
    twoFactorEnrolmentDue: Boolean(first.two_factor_due),
    grants: grantRowsOf(rows),
    expiresAt: first.expires_at,
    createdAt: first.session_created_at,
    lastSeenAt: first.last_seen_at,
  };
  return resolveImpersonation(id, real, first, origin);
}

async function resolve({ request, context }: Args): Promise<AuthState> {
  // On /api/* an Authorization header is the credential: a live token's owner, else refused (never the cookie).
  if (isApiRequest(request) && hasAuthorization(request))
    return { ...(await authenticateBearer(request)), renewCookie: null };
  const id = await sessionIdFrom(request);
  if (!id) return { user: null, renewCookie: null };
  const session = await cachedSession(id, (id) => loadSession(id, context ? { request, context } : null));
  if (!session) return { user: null, renewCookie: null };

  const grants = await grantsOf(session.grants.filter((g) => isLiveRow(g)));
  // Viewing as someone, the super admin's own limits and network rules still hold.
  const own = session.ownGrants ? await grantsOf(session.ownGrants.filter((g) => isLiveRow(g))) : null;
  const limits = await sessionLimits(own ? [...own, ...grants] : grants);
  const ending = await endingOf(id, session, limits);
  if (ending) {
    await endSessions({ id });
    const person = session.impersonator ?? { id: session.userId, email: session.email };
    if (context)
      await audit(
        { request, context },
        {
          action: "auth.session.expired",
          actor: person,
          target: { type: "user", id: person.id },
          details: { reason: ending },
        },
      );
    return { user: null, renewCookie: null };
  }
  if (touchDue(session.lastSeenAt, limits)) await touchSession(id, session);

  const roles: string[] = [];
  const permissions = new Set<string>();
  let isSuperAdmin = false;
  // Global authority comes from global grants only; the ones within a team stay in `grants`, for decide().
  for (const { role, team } of grants) {
    if (team) continue;
    roles.push(role.name);
    if (role.all) isSuperAdmin = true;
    for (const p of role.permissions) permissions.add(p);
  }

  let renewCookie: string | null = null;
  const lifetime = maxAgeSeconds() * 1000;
  if (Date.parse(session.expiresAt) - Date.now() < lifetime * RENEW_WHEN_LEFT) {
    const expires = new Date(Date.now() + lifetime);
    await db()
      .updateTable("session")
      .set({ expires_at: expires.toISOString(), last_seen_at: now() })
      .where("id", "=", id)
      .execute();
    session.expiresAt = expires.toISOString();
    renewCookie = await sessionCookie().serialize(id, { expires });
  }

  return {
    user: {
      id: session.userId,
      name: session.name,
      email: session.email,
      roles,
      permissions,
      isSuperAdmin,
      grants,
      ...(own ? { networkGrants: [...own, ...grants] } : {}),
      mustChangePassword: session.mustChangePassword,
      locale: session.locale ?? null,
      twoFactorEnrolmentDue: session.twoFactorEnrolmentDue ?? false,
      sessionId: id,
      sessionExpiresAt:
        session.impersonator && session.impersonator.until < session.expiresAt
          ? session.impersonator.until
          : session.expiresAt,
      impersonator: session.impersonator ?? null,
    },
    renewCookie,
  };
}

export async function getAuth({ request, context }: Args): Promise<AuthState> {
  const cached = context?.get(authContext);
  if (cached) return cached;
  const state = await resolve({ request, context });
  (context as RouterContextProvider | undefined)?.set(authContext, state);
  const impersonator = state.user?.impersonator;
  if (impersonator)
    (context as RouterContextProvider | undefined)?.set(auditImpersonatorContext, {
      id: impersonator.id,
      email: impersonator.email,
    });
  return state;
}

export async function getSessionUser(args: Args): Promise<SessionUser | null> {
  return (await getAuth(args)).user;
}

/** Always a new id, so a session fixed before sign-in is never the signed-in one. */
export async function startSession(userId: string, { request, context }: Args): Promise<string[]> {
  const cookies: string[] = [];
  const previous = await sessionIdFrom(request);
  if (previous) await endSessions({ id: previous });
  const session = await sessionStorage().getSession();
  session.set("userId", userId);
  session.set("ip", clientIp(context));
  session.set("userAgent", userAgent(request));
  cookies.push(await sessionStorage().commitSession(session, { maxAge: maxAgeSeconds() }));
  return cookies;
}

export async function endSession(request: Request): Promise<string> {
  const session = await sessionStorage().getSession(request.headers.get("Cookie"));
  return sessionStorage().destroySession(session);
}

/** `ip`: the address the stream was opened from, which the roles' network rules keep judging. */
export function streamOptionsFor(user: SessionUser, ip: string): StreamOptions {
  const grants = user.networkGrants ?? user.grants;
  return {
    until: user.sessionExpiresAt,
    session: sessionHandle(user.sessionId),
    stillAllowed: async () => (await rolesRefusing(grants, ip)).length === 0,
  };
}

// A role's network rule changed (on any instance: the roles cache is cleared everywhere): open
// streams from an address it now leaves out end, and their reconnect gets the gate's 403.
// After a microtask, so the roles cache itself has been cleared whatever order the clearers run in.
registerCache("roles", () => queueMicrotask(() => void recheckStreams()));

export async function endAllSessions(userId: string, exceptSessionId?: string) {
  await endSessions({ userId, except: exceptSessionId });
}

export const sessionMiddleware: import("react-router").MiddlewareFunction<Response> = async (args, next) => {
  const state = await getAuth(args);
  if (state.refusal) return state.refusal;
  const response = await next();
  if (state.renewCookie && response instanceof Response)
    response.headers.append("Set-Cookie", state.renewCookie);
  return response;
};
