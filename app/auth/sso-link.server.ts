import { createHash, randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import { createCookie, type RouterContextProvider, redirect } from "react-router";
import type { Database } from "../../db/schema";
import type { RoleGrant } from "../access/role-cache.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, type Executor, now } from "../db.server";
import { secureCookies, sessionSecrets } from "../env.server";
import { safeRedirectPath } from "../http/responses";
import { type Message, message } from "../i18n/message";
import { checkAccountPassword } from "./login.server";
import { invalidateSessions } from "./session-cache.server";
import { finishOidcSignIn } from "./sign-in.server";
import type { LinkProof } from "./sso-link-schemas";
import { hasTwoFactor } from "./two-factor.server";
import { checkSecondFactorCode, WRONG_CODE } from "./two-factor-sign-in.server";

// A provider proves an address, not the account: an account worth more than one factor is linked
// only after its holder proves it once (decision 020, "Who gets in").

type Args = { request: Request; context?: Readonly<RouterContextProvider> };
type Tx = Transaction<Database> | Executor;

const LINK_PAGE = "/login/sso-link";
const PENDING_LINK_SECONDS = 5 * 60;

export type ProofReason = "privileged" | "second_factor" | "other_provider";

const PRIVILEGED = new Set(["roles.manage", "settings.manage"]);

async function isPrivileged(tx: Tx, userId: string, grants: Map<string, RoleGrant>): Promise<boolean> {
  const roles = await tx.selectFrom("user_role").select("role_id").where("user_id", "=", userId).execute();
  return roles.some(({ role_id }) => {
    const grant = grants.get(role_id);
    if (!grant) return false;
    return grant.all || [...grant.permissions].some((p) => PRIVILEGED.has(p) || p.startsWith("user."));
  });
}

async function hasPasskey(tx: Tx, userId: string): Promise<boolean> {
  const row = await tx.selectFrom("passkey").select("id").where("user_id", "=", userId).executeTakeFirst();
  return row !== undefined;
}

/**
 * An unverified account's second factor is not its holder's proof: whoever set it never proved the
 * address. `grants` is read before the transaction (SQLite has one connection).
 */
export async function proofNeeded(
  tx: Tx,
  user: { id: string; email_verified: number },
  providerId: string,
  grants: Map<string, RoleGrant>,
): Promise<ProofReason | null> {
  const elsewhere = await tx
    .selectFrom("oidc_identity")
    .select("provider_id")
    .where("user_id", "=", user.id)
    .where("provider_id", "!=", providerId)
    .executeTakeFirst();
  if (elsewhere) return "other_provider";
  if (await isPrivileged(tx, user.id, grants)) return "privileged";
  if (user.email_verified === 1 && ((await hasTwoFactor(user.id, tx)) || (await hasPasskey(tx, user.id))))
    return "second_factor";
  return null;
}

let linkCookie: ReturnType<typeof createCookie> | undefined;
function cookie() {
  linkCookie ??= createCookie("__sso_link", {
    httpOnly: true,
    // Set on the callback, a top-level navigation from the provider: lax cookies go along.
    sameSite: "lax",
    secure: secureCookies(),
    // Not LINK_PAGE itself: the page's form posts to `/login/sso-link.data`, outside that path.
    path: "/login",
    secrets: sessionSecrets(),
    maxAge: PENDING_LINK_SECONDS,
  });
  return linkCookie;
}

const hashed = (token: string) => createHash("sha256").update(token).digest("hex");

type Pending = { userId: string; providerId: string; providerSlug: string; subject: string };

export async function holdPendingLink(
  args: Args,
  pending: Pending & { email: string; reason: ProofReason; redirectTo: string },
  headers: Headers,
): Promise<Response> {
  const token = randomBytes(32).toString("base64url");
  const ts = now();
  await db().deleteFrom("oidc_pending_link").where("expires_at", "<", ts).execute();
  await db()
    .insertInto("oidc_pending_link")
    .values({
      id: hashed(token),
      user_id: pending.userId,
      provider_id: pending.providerId,
      subject: pending.subject,
      reason: pending.reason,
      redirect_to: safeRedirectPath(pending.redirectTo),
      created_at: ts,
      expires_at: new Date(Date.now() + PENDING_LINK_SECONDS * 1000).toISOString(),
    })
    .execute();
  await audit(args, {
    action: "sso.link.required",
    actor: { id: pending.userId, email: pending.email },
    target: { type: "user", id: pending.userId },
    details: { provider: pending.providerSlug, subject: pending.subject, reason: pending.reason },
  });
  headers.append("Set-Cookie", await cookie().serialize(token));
  return redirect(LINK_PAGE, { headers });
}

export type PendingLinkView = {
  email: string;
  provider: string;
  canUsePassword: boolean;
  canUseCode: boolean;
};

async function findPending(request: Request) {
  const token: unknown = await cookie().parse(request.headers.get("Cookie"));
  if (typeof token !== "string" || !token) return null;
  const row = await db()
    .selectFrom("oidc_pending_link")
    .innerJoin("user", "user.id", "oidc_pending_link.user_id")
    .innerJoin("oidc_provider", "oidc_provider.id", "oidc_pending_link.provider_id")
    .select([
      "oidc_pending_link.id",
      "oidc_pending_link.user_id",
      "oidc_pending_link.provider_id",
      "oidc_pending_link.subject",
      "oidc_pending_link.reason",
      "oidc_pending_link.redirect_to",
      "oidc_pending_link.expires_at",
      "user.email",
      "user.status",
      "user.password_hash",
      "oidc_provider.slug",
      "oidc_provider.name",
    ])
    .where("oidc_pending_link.id", "=", hashed(token))
    .executeTakeFirst();
  if (!row || row.expires_at <= now() || row.status !== "active") return null;
  return row;
}

export async function pendingLinkView(request: Request): Promise<PendingLinkView | null> {
  const row = await findPending(request);
  if (!row) return null;
  return {
    email: row.email,
    provider: row.name,
    canUsePassword: row.password_hash !== null,
    canUseCode: await hasTwoFactor(row.user_id),
  };
}

export const WRONG_PASSWORD = message("sso.wrongPassword");

export type LinkOutcome =
  | { ok: true; response: Response }
  | { ok: false; status: "expired" }
  | { ok: false; status: "conflict" }
  | { ok: false; status: "rate_limited"; retryAfter: number }
  | { ok: false; status: 400; message: Message };

type Row = NonNullable<Awaited<ReturnType<typeof findPending>>>;

/** Rate limited like sign-in (password) and the two-factor step (code). */
async function checkProof(
  args: Args,
  row: Row,
  proof: LinkProof,
): Promise<{ ok: true } | Exclude<LinkOutcome, { ok: true }>> {
  const actor = { id: row.user_id, email: row.email };
  const failed = (reason: string) =>
    audit(args, {
      action: "sso.link.failed",
      actor,
      target: { type: "user", id: row.user_id },
      details: { provider: row.slug, subject: row.subject, proof: proof.kind, reason },
    });
  if (proof.kind === "password") {
    const checked = await checkAccountPassword(args, row, proof.password);
    if (checked.ok) return checked;
    await failed(checked.status === "rate_limited" ? "rate_limited" : "wrong_password");
    return checked.status === "rate_limited" ? checked : { ok: false, status: 400, message: WRONG_PASSWORD };
  }
  const checked = await checkSecondFactorCode(args, row.user_id, proof.code);
  if (checked.ok) return { ok: true };
  await failed(checked.status === "rate_limited" ? "rate_limited" : "wrong_code");
  return checked.status === "rate_limited"
    ? { ok: false, status: "rate_limited", retryAfter: checked.retryAfter }
    : { ok: false, status: 400, message: WRONG_CODE };
}

export async function proveAndLink(args: Args, proof: LinkProof): Promise<LinkOutcome> {
  const row = await findPending(args.request);
  if (!row) return { ok: false, status: "expired" };
  const checked = await checkProof(args, row, proof);
  if (!checked.ok) return checked;
  const linked = await db()
    .transaction()
    .execute(async (tx) => {
      // Single use: the first right proof takes the row; a parallel one finds nothing.
      const gone = await tx.deleteFrom("oidc_pending_link").where("id", "=", row.id).executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) return "expired" as const;
      const taken = await tx
        .selectFrom("oidc_identity")
        .select(["user_id", "subject"])
        .where("provider_id", "=", row.provider_id)
        .where((eb) => eb.or([eb("subject", "=", row.subject), eb("user_id", "=", row.user_id)]))
        .execute();
      if (taken.some((t) => t.subject === row.subject && t.user_id === row.user_id)) return "linked" as const;
      if (taken.length) return "conflict" as const;
      await linkIdentity(tx, args, {
        userId: row.user_id,
        email: row.email,
        providerId: row.provider_id,
        providerSlug: row.slug,
        subject: row.subject,
        proof: proof.kind === "password" ? "password" : "two_factor",
      });
      await tx
        .updateTable("user")
        .set({ email_verified: 1, pending_registration: 0, last_login_at: now(), updated_at: now() })
        .where("id", "=", row.user_id)
        .execute();
      return "linked" as const;
    });
  await invalidateSessions();
  if (linked === "expired") return { ok: false, status: "expired" };
  if (linked === "conflict") return { ok: false, status: "conflict" };
  // The provider and the password are only one factor, so an account with two-factor still passes /login/two-factor.
  const response = await finishOidcSignIn(
    args,
    { id: row.user_id, email: row.email },
    {
      provider: row.slug,
      factors: proof.kind === "code" ? 2 : 1,
      redirectTo: row.redirect_to,
      clearCookie: await clearPendingLink(),
    },
  );
  return { ok: true, response };
}

function clearPendingLink(): Promise<string> {
  return cookie().serialize("", { maxAge: 0 });
}

export async function linkIdentity(
  tx: Transaction<Database>,
  origin: AuditOrigin,
  link: Pending & { email: string; proof: "automatic" | "password" | "two_factor" },
) {
  await tx
    .insertInto("oidc_identity")
    .values({ provider_id: link.providerId, subject: link.subject, user_id: link.userId, created_at: now() })
    .execute();
  await audit(
    origin,
    {
      action: "sso.account.linked",
      actor: { id: link.userId, email: link.email },
      target: { type: "user", id: link.userId },
      details: { provider: link.providerSlug, subject: link.subject, proof: link.proof },
    },
    tx,
  );
}
