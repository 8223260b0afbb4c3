import { type MiddlewareFunction, type RouterContextProvider, redirect } from "react-router";
import { can } from "../access/check";
import { missingPermission } from "../access/missing-permission";
import { rolesRefusing } from "../access/networks.server";
import { notePermissionUse } from "../access/permission-use.server";
import type { PermissionKey } from "../access/permissions";
import { mayAnywhere, mayOnUser } from "../access/reach.server";
import { type RoleGrant, roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import { readForm } from "../http/read-form.server";
import { clientIp, isApiRequest } from "../http/request-info.server";
import { apiError, refusal, safeRedirectPath } from "../http/responses";
import { nonceContext } from "../http/security.server";
import { readTheme, type Theme } from "../http/theme.server";
import { englishTranslator } from "../i18n/english.server";
import { getT } from "../i18n/i18n.server";
import { type MessageKey, say } from "../i18n/message";
import { getSessionUser, type SessionUser } from "./session.server";
import { isOwnAccountPage, refusedWhileViewingAs } from "./viewing-as";

/** `url` is the page's address: with v8_passThroughRequests `request.url` is the raw `.data` one (decision 027). */
type Args = { request: Request; url?: URL; context?: Readonly<RouterContextProvider> };

/** The one refusal body (app/http/responses.ts), said in the request's language. */
export type ForbiddenData = {
  error:
    | "forbidden"
    | "impersonating"
    | "password_change_required"
    | "two_factor_enrolment_required"
    | "network_not_allowed";
  permission: string | null;
  message: string;
  grantedBy?: string;
  /** The roles that give the permission, for the person to ask for by name. */
  roles?: string[];
  /** Those of them anyone may request (for a while), with a link to ask. */
  requestable?: { name: string; label: string }[];
  /** Set by the access gate, which refuses before the root loader reads the theme and the nonce. */
  shell?: GateShell;
};

type GateShell = { theme: Theme; nonce: string };

function refused({ error, ...details }: ForbiddenData) {
  return refusal(403, error, details);
}

function unauthorized({ request, url = new URL(request.url) }: Args): never {
  if (isApiRequest(request)) throw apiError(401, "unauthorized");
  const back = url.pathname + url.search;
  throw redirect(`/login?${new URLSearchParams({ redirectTo: back })}`);
}

/** English where no router context came along (a script, a unit test). */
function tOf(args: { context?: Readonly<RouterContextProvider> }) {
  return args.context ? getT(args.context) : englishTranslator();
}

/** The roles that give `permission` over everyone, as the reader's language says them, in the role order. */
async function rolesGiving(args: Args, permission: string | null): Promise<string[]> {
  if (!permission) return [];
  const t = tOf(args);
  return [...(await roleGrants()).values()]
    .filter((r) => r.all || r.permissions.has(permission))
    .map((r) => roleLabel(t, r));
}

/** The requestable roles that give `permission`: a page needing dashboard.access has none to offer. */
async function requestableGiving(args: Args, permission: string | null) {
  if (!permission || permission === "dashboard.access") return [];
  const t = tOf(args);
  return [...(await roleGrants()).values()]
    .filter((r) => !r.all && r.maxRequestHours !== null && r.permissions.has(permission))
    .map((r) => ({ name: r.name, label: roleLabel(t, r) }));
}

async function forbidden(args: Args, permission: string | null): Promise<never> {
  if (isApiRequest(args.request)) {
    throw apiError(403, "forbidden", permission ? { permission } : { role: "super_admin" });
  }
  const [roles, requestable] = await Promise.all([
    rolesGiving(args, permission),
    requestableGiving(args, permission),
  ]);
  throw refused({ error: "forbidden", ...missingPermission(permission, tOf(args)), roles, requestable });
}

function refusedFor(args: Args, error: ForbiddenData["error"], reason: MessageKey, shell?: GateShell) {
  return refused({ error, permission: null, message: say(tOf(args), reason), shell });
}

export async function requireUser(args: Args): Promise<SessionUser> {
  const user = await getSessionUser(args);
  if (!user) unauthorized(args);
  return user;
}

/** For access reviews' "last used": the person's own checks, not a super admin's viewing as them. */
function used(user: SessionUser, permission: PermissionKey): SessionUser {
  if (!user.impersonator) notePermissionUse(user.id, permission);
  return user;
}

export async function requirePermission(args: Args, permission: PermissionKey): Promise<SessionUser> {
  const user = await requireUser(args);
  if (!can(user, permission)) await forbidden(args, permission);
  return used(user, permission);
}

/** Held over everyone or within some team (decide()); the caller then keeps to what is in reach. */
export async function requireSomewhere(args: Args, permission: PermissionKey): Promise<SessionUser> {
  const user = await requireUser(args);
  if (!mayAnywhere(user, permission)) await forbidden(args, permission);
  return used(user, permission);
}

/** On one person: held over them, else 404 where it is held elsewhere (no oracle), 403 where nowhere. */
export async function requireOnUser(
  args: Args,
  permission: PermissionKey,
  userId: string,
): Promise<SessionUser> {
  const user = await requireSomewhere(args, permission);
  if (!(await mayOnUser(user, permission, userId))) {
    if (isApiRequest(args.request)) throw apiError(404, "not_found");
    throw refusal(404, "not_found", { message: say(tOf(args), "users.notFound") });
  }
  return user;
}

export async function requireSuperAdmin(args: Args): Promise<SessionUser> {
  const user = await requireUser(args);
  if (!user.isSuperAdmin) await forbidden(args, null);
  return user;
}

/** Changes to the account itself are the real person's alone, refused while a super admin views as them. */
export function refuseWhileImpersonating(args: Args, user: SessionUser): void {
  if (!user.impersonator) return;
  if (isApiRequest(args.request)) throw apiError(403, "impersonating");
  throw refusedFor(args, "impersonating", "auth.impersonating");
}

// Resource routes any visitor may call: signed links, signed webhooks, the bench baseline, the
// API's description (what integrators generate clients from; it holds no one's data), 404s.
const OPEN_API = new Set([
  "/api/auth/verify-email",
  "/api/webhooks/tasks",
  "/api/ping",
  "/api/openapi.json",
  "/api/*",
]);
const PASSWORD_PAGE = "/dashboard/settings/security";

function isGated(pattern: string): boolean {
  return (
    pattern === "/dashboard" ||
    pattern.startsWith("/dashboard/") ||
    (pattern.startsWith("/api/") && !OPEN_API.has(pattern))
  );
}

/**
 * Read from the very FormData the action receives, so no body encoding trick can show the gate one
 * intent and the action another.
 */
async function formIntent(request: Request): Promise<string | null> {
  const intent = (await readForm(request)).get("intent");
  return typeof intent === "string" ? intent : null;
}

async function mayWhileChangingPassword(request: Request, pattern: string): Promise<boolean> {
  if (pattern !== PASSWORD_PAGE) return false;
  if (request.method === "GET" || request.method === "HEAD") return true;
  return (await formIntent(request)) === "password";
}

function passwordFirst(args: Args, shell: GateShell): never {
  const { request, url = new URL(request.url) } = args;
  if (isApiRequest(request)) throw apiError(403, "password_change_required");
  if (request.method === "GET" || request.method === "HEAD") {
    const headed = url.pathname + url.search;
    const query = new URLSearchParams({ mustChange: "1" });
    if (afterPasswordChange(headed) !== "/dashboard") query.set("redirectTo", headed);
    throw redirect(`${PASSWORD_PAGE}?${query}`);
  }
  throw refusedFor(args, "password_change_required", "access.passwordFirst", shell);
}

/** Checked again here, as it comes from the form: a same-origin path in the signed-in area, else the dashboard. */
export function afterPasswordChange(value: unknown): string {
  const path = safeRedirectPath(value, "/dashboard");
  return /^\/dashboard(?:[/?#]|$)/.test(path) ? path : "/dashboard";
}

// Two-factor enrolment a role requires: only Settings and these intents stay open (/logout is not gated).
const TWO_FACTOR_ENROL_INTENTS = new Set(["two-factor-start", "two-factor-confirm"]);

async function mayWhileEnrolling(request: Request, pattern: string): Promise<boolean> {
  if (pattern !== PASSWORD_PAGE) return false;
  if (request.method === "GET" || request.method === "HEAD") return true;
  return TWO_FACTOR_ENROL_INTENTS.has((await formIntent(request)) ?? "");
}

function twoFactorFirst(args: Args, shell: GateShell): never {
  const { request, url = new URL(request.url) } = args;
  if (isApiRequest(request)) throw apiError(403, "two_factor_enrolment_required");
  if (request.method === "GET" || request.method === "HEAD") {
    const headed = url.pathname + url.search;
    const query = new URLSearchParams({ twoFactor: "1" });
    if (afterPasswordChange(headed) !== "/dashboard") query.set("redirectTo", headed);
    throw redirect(`${PASSWORD_PAGE}?${query}`);
  }
  throw refusedFor(args, "two_factor_enrolment_required", "access.twoFactorFirst", shell);
}

async function ownAccountForm(request: Request, pattern: string): Promise<boolean> {
  if (request.method === "GET" || request.method === "HEAD" || !isOwnAccountPage(pattern)) return false;
  const intent = await formIntent(request);
  return intent !== null && refusedWhileViewingAs(pattern, intent);
}

async function gateShell(args: Parameters<MiddlewareFunction<Response>>[0]): Promise<GateShell> {
  return { theme: await readTheme(args.request), nonce: args.context.get(nonceContext) };
}

/**
 * A role held has network rules that leave this address out (app/access/networks.server.ts). The
 * page says which roles and where the person is, never the allowed ranges (the network's layout).
 */
export function networkNotAllowed(args: Args, roles: readonly RoleGrant[], shell?: GateShell): never {
  if (isApiRequest(args.request)) throw apiError(403, "network_not_allowed");
  const t = tOf(args);
  throw refused({
    error: "network_not_allowed",
    permission: null,
    message: say(t, {
      key: "auth.networkNotAllowed",
      values: { roles: roles.map((r) => roleLabel(t, r)).join(", "), ip: clientIp(args.context) },
    }),
    grantedBy: say(t, "auth.networkAsk"),
    shell,
  });
}

/**
 * The one gate of the signed-in area, before every loader and action (also `.data?_routes=` and
 * /api/*); keyed by the matched route pattern, so URL variants meet the same rule (decision 009).
 */
export const accessGateMiddleware: MiddlewareFunction<Response> = async (args, next) => {
  const pattern = `/${args.pattern.replace(/^\/+/, "")}`;
  if (!isGated(pattern)) return next();
  const user = await requireUser(args);
  const outside = await rolesRefusing(user.networkGrants ?? user.grants, clientIp(args.context));
  if (outside.length > 0) networkNotAllowed(args, outside, await gateShell(args));
  if (!can(user, "dashboard.access")) {
    if (isApiRequest(args.request)) await forbidden(args, "dashboard.access");
    throw refused({
      error: "forbidden",
      ...missingPermission("dashboard.access", tOf(args)),
      roles: await rolesGiving(args, "dashboard.access"),
      shell: await gateShell(args),
    });
  }
  // Refused before any action reads them; the pages show the same forms locked.
  if (user.impersonator && (await ownAccountForm(args.request, pattern)))
    throw refusedFor(args, "impersonating", "auth.impersonating", await gateShell(args));
  // Neither demand is set while viewing as someone, and /impersonation/stop is outside the gated area.
  if (user.mustChangePassword && !(await mayWhileChangingPassword(args.request, pattern)))
    passwordFirst(args, await gateShell(args));
  if (user.twoFactorEnrolmentDue && !(await mayWhileEnrolling(args.request, pattern)))
    twoFactorFirst(args, await gateShell(args));
  return next();
};
