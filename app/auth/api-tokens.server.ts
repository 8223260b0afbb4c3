import { randomBytes, randomUUID } from "node:crypto";
import { can } from "../access/check";
import type { Grant } from "../access/decide";
import { liveGlobal } from "../access/grant-rows.server";
import { PERMISSION_KEYS, PERMISSIONS } from "../access/permissions";
import { roleGrants } from "../access/role-cache.server";
import { assertCanManageUser, mayManageUser } from "../access/rules.server";
import type { Actor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, type Executor, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { closeStreamsOf } from "../events/stream.server";
import { apiError, tooManyRequests } from "../http/responses";
import { hit } from "../security/rate-limit.server";
import type { CreateApiTokenInput } from "./api-token-schemas";
import { hashToken } from "./tokens.server";
import { twoFactorEnrolmentDue } from "./two-factor.server";

// Personal API tokens (decision 022). Nothing is cached: every use reads the token, the owner's
// status and roles, so a revoke, a disabled owner or a removed role applies at once.

/** Secret scanners look for this prefix (docs/http-contract.md, "API tokens"). */
const API_TOKEN_PREFIX = "dash_";
const TOKEN_SHAPE = /^dash_[A-Za-z0-9_-]{43}$/;
const BEARER = /^Bearer +(\S+) *$/i;
const MAX_API_TOKENS = 50;
export const LAST_USED_EVERY_MS = 60_000;

/** `via` refuses it to a token itself. */
type TokenOwner = Omit<Actor, "roles">;

export const hashApiToken = hashToken;

/** What a token may be given, in the list's order. */
export function grantablePermissions(actor: TokenOwner): { key: string; label: string }[] {
  return PERMISSIONS.filter((p) => can(actor, p.key)).map((p) => ({ key: p.key, label: p.label }));
}

function parseKeys(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((k): k is string => typeof k === "string") : [];
  } catch {
    return [];
  }
}

/** The returned secret is never stored or shown again. */
export async function createApiToken(actor: TokenOwner, input: CreateApiTokenInput, origin: AuditOrigin) {
  if (actor.via === "token") throw new RuleViolation("apiTokens.noCreateByToken");
  const held = new Set(grantablePermissions(actor).map((p) => p.key));
  if (input.permissions.some((key) => !held.has(key)))
    throw new InvalidInput("apiTokens.heldOnly", "permissions");
  const live = await db()
    .selectFrom("api_token")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", actor.id)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now())
    .executeTakeFirstOrThrow();
  if (Number(live.n) >= MAX_API_TOKENS)
    throw new InvalidInput("apiTokens.limit", "name", { count: MAX_API_TOKENS });

  const secret = API_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const id = randomUUID();
  const created = Date.now();
  const expiresAt = new Date(created + input.expiresInDays * 86_400_000).toISOString();
  const permissions = PERMISSION_KEYS.filter((key) => input.permissions.includes(key));
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("api_token")
        .values({
          id,
          user_id: actor.id,
          name: input.name,
          token_hash: hashApiToken(secret),
          permissions: JSON.stringify(permissions),
          expires_at: expiresAt,
          created_at: new Date(created).toISOString(),
          last_used_at: null,
          revoked_at: null,
          revoked_by: null,
        })
        .execute();
      await audit(
        origin,
        {
          action: "account.api_token.create",
          actor,
          target: { type: "api_token", id },
          details: { name: input.name, permissions, expiresAt },
        },
        trx,
      );
    });
  return { id, secret, expiresAt };
}

export type ApiTokenView = {
  id: string;
  name: string;
  permissions: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
  expired: boolean;
};

/** Never the secret nor its hash. */
export async function listApiTokens(userId: string): Promise<ApiTokenView[]> {
  const rows = await db()
    .selectFrom("api_token")
    .select(["id", "name", "permissions", "created_at", "last_used_at", "expires_at"])
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(MAX_API_TOKENS * 2)
    .execute();
  const at = Date.now();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    permissions: parseKeys(r.permissions),
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    expiresAt: r.expires_at,
    expired: Date.parse(r.expires_at) <= at,
  }));
}

/** Names and last use only for those who may revoke them; null for anyone else. */
export async function apiTokensShownTo(
  viewer: Pick<Actor, "id" | "isSuperAdmin" | "permissions">,
  userId: string,
): Promise<ApiTokenView[] | null> {
  if (!can(viewer, "user.update") || !(await mayManageUser(viewer, userId))) return null;
  return listApiTokens(userId);
}

async function revoke(
  actor: TokenOwner,
  userId: string,
  tokenId: string,
  origin: AuditOrigin,
  action: "account.api_token.revoke" | "user.api_token.revoke",
) {
  const row = await db()
    .selectFrom("api_token")
    .select(["id", "name"])
    .where("id", "=", tokenId)
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (!row) throw new NotFound("apiTokens.gone");
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("api_token")
        .set({ revoked_at: now(), revoked_by: actor.id })
        .where("id", "=", row.id)
        .where("revoked_at", "is", null)
        .execute();
      const target =
        action === "account.api_token.revoke"
          ? { type: "api_token", id: row.id }
          : { type: "user", id: userId };
      await audit(origin, { action, actor, target, details: { name: row.name, id: row.id } }, trx);
    });
  // Streams are not tied to a credential: end the owner's; the browser tabs reconnect.
  closeStreamsOf(userId);
}

/** For a password reset by email: whoever held the account may have made one. The caller audits. */
export async function revokeAllApiTokens(userId: string, executor: Executor): Promise<number> {
  const result = await executor
    .updateTable("api_token")
    .set({ revoked_at: now(), revoked_by: userId })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function revokeOwnApiToken(actor: TokenOwner, input: { id: string }, origin: AuditOrigin) {
  if (actor.via === "token") throw new RuleViolation("apiTokens.noRevokeByToken");
  await revoke(actor, actor.id, input.id, origin, "account.api_token.revoke");
}

export async function revokeUserApiToken(
  actor: TokenOwner,
  input: { userId: string; id: string },
  origin: AuditOrigin,
) {
  if (actor.via === "token") throw new RuleViolation("apiTokens.noRevokeByToken");
  await assertCanManageUser(actor, input.userId);
  await revoke(actor, input.userId, input.id, origin, "user.api_token.revoke");
}

type TokenCaller = {
  id: string;
  name: string;
  email: string;
  roles: string[];
  permissions: Set<string>;
  isSuperAdmin: false;
  grants: Grant[];
  networkGrants: Grant[];
  mustChangePassword: boolean;
  twoFactorEnrolmentDue: boolean;
  sessionId: string;
  sessionExpiresAt: string;
  impersonator: null;
  via: "token";
};

export type BearerOutcome = { user: TokenCaller; refusal: null } | { user: null; refusal: Response };

const unauthorized = (): BearerOutcome => ({ user: null, refusal: apiError(401, "unauthorized") });

export function hasAuthorization(request: Request): boolean {
  return request.headers.has("Authorization");
}

/** 401 for anything but a live token (never the cookie instead), 429 past the token's rate limit. */
export async function authenticateBearer(request: Request): Promise<BearerOutcome> {
  const raw = BEARER.exec(request.headers.get("Authorization") ?? "")?.[1];
  if (!raw || !TOKEN_SHAPE.test(raw)) return unauthorized();
  const rows = await db()
    .selectFrom("api_token")
    .innerJoin("user", "user.id", "api_token.user_id")
    // A token carries global authority only: grants within a team stay with the session (decision 044).
    .leftJoin("user_role", (join) => join.onRef("user_role.user_id", "=", "user.id").on(liveGlobal))
    .select([
      "api_token.id as token_id",
      "api_token.permissions",
      "api_token.expires_at",
      "api_token.last_used_at",
      "user.id",
      "user.name",
      "user.email",
      "user.must_change_password",
      "user_role.role_id",
      // A role's two-factor requirement gates a token as it gates the session.
      twoFactorEnrolmentDue,
    ])
    .where("api_token.token_hash", "=", hashApiToken(raw))
    .where("api_token.revoked_at", "is", null)
    .where("api_token.expires_at", ">", now())
    .where("user.status", "=", "active")
    .execute();
  const first = rows[0];
  if (!first) return unauthorized();

  const limit = await hit("apiTokenUse", first.token_id);
  if (!limit.ok) return { user: null, refusal: tooManyRequests(limit.retryAfterSeconds) };
  await recordUse(first.token_id, first.last_used_at);

  const grants = await roleGrants();
  const owner = new Set<string>();
  for (const { role_id } of rows) {
    const grant = role_id ? grants.get(role_id) : undefined;
    if (!grant) continue;
    for (const key of grant.all ? PERMISSION_KEYS : grant.permissions) owner.add(key);
  }
  const permissions = new Set(parseKeys(first.permissions).filter((key) => owner.has(key)));
  // The owner's network rules travel with their token: a token copied off the network is refused there too.
  const ownerRoles = [...new Set(rows.flatMap((r) => (r.role_id ? [r.role_id] : [])))].flatMap((id) => {
    const role = grants.get(id);
    return role ? [{ role, team: null, expiresAt: null }] : [];
  });
  return {
    refusal: null,
    user: {
      id: first.id,
      name: first.name,
      email: first.email,
      roles: [],
      permissions,
      isSuperAdmin: false,
      // What decide() reads: the token's own keys, held over everyone, ending with the token.
      grants: [
        {
          role: { id: "api-token", name: "api-token", label: "API token", all: false, permissions },
          team: null,
          // The token's end is checked when it is presented; its keys are no grant that ends.
          expiresAt: null,
        },
      ],
      networkGrants: ownerRoles,
      mustChangePassword: first.must_change_password === 1,
      twoFactorEnrolmentDue: Boolean(first.two_factor_due),
      sessionId: `api-token:${first.token_id}`,
      sessionExpiresAt: first.expires_at,
      impersonator: null,
      via: "token",
    },
  };
}

/** The condition keeps two instances from both writing; a busy token costs no write per request. */
async function recordUse(tokenId: string, lastUsedAt: string | null) {
  const at = Date.now();
  if (lastUsedAt && at - Date.parse(lastUsedAt) < LAST_USED_EVERY_MS) return;
  const cutoff = new Date(at - LAST_USED_EVERY_MS).toISOString();
  await db()
    .updateTable("api_token")
    .set({ last_used_at: new Date(at).toISOString() })
    .where("id", "=", tokenId)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", cutoff)]))
    .execute();
}
