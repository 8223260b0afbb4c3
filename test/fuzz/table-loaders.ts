import fc from "fast-check";
import { USER_SORTS } from "../../app/users/list-options";
import type { Pools } from "./fixtures";
import { type FuzzTarget, query } from "./target";
import { cursors, dates, either, emails, ids, names, numbers, oneOf, segment, text } from "./values";

// Every loader, with the query parameters it reads (and some it does not).

const token = either(fc.base64String({ minLength: 10, maxLength: 60 }));
const anon = { caller: "anon" as const };
const tasks = (suffix: string) => (p: Pools) => segment(p.tasks).map((id) => `/api/tasks/${id}${suffix}`);

/** No endpoint exists in the fuzz database: every id is unknown, as an attacker's would be. */
const endpoints = (suffix: string) => (p: Pools) =>
  segment(p.tasks).map((id) => `/api/webhook-endpoints/${id}${suffix}`);

export const LOADERS: FuzzTarget[] = [
  query("root", "/", () => ({ x: text })),
  query("routes/home", "/", () => ({ x: text })),
  query("routes/login", "/login", () => ({ redirectTo: text, verified: text }), anon),
  query("routes/login.two-factor", "/login/two-factor", () => ({ x: text }), anon),
  query("routes/login.sso-link", "/login/sso-link", () => ({ x: text }), anon),
  query("routes/logout", "/logout"),
  query("routes/impersonation.stop", "/impersonation/stop"),
  query("routes/theme", "/theme", () => ({ theme: text })),
  query("routes/register", "/register", () => ({ email: emails }), anon),
  query(
    "routes/check-inbox",
    "/check-inbox",
    (p) => ({ for: oneOf(["register", "reset", "resend", "__proto__"]), d: ids(p.deliveries) }),
    anon,
  ),
  query("routes/resend-verification", "/resend-verification", () => ({ email: emails }), anon),
  query("routes/forgot-password", "/forgot-password", () => ({ email: emails }), anon),
  query("routes/reset-password", "/reset-password", () => ({ token, contested: text }), anon),
  query("routes/accept-invite", "/accept-invite", () => ({ token }), anon),
  query("routes/api.auth.verify-email", "/api/auth/verify-email", () => ({ token }), anon),
  query("routes/api.mail", "/api/mail", () => ({ to: emails })),
  query("routes/api.access.sync", "/api/access/sync"),
  query("routes/api.access.explain", "/api/access/explain", (p) => ({
    user: ids(p.users),
    permission: oneOf(["user.read", "settings.manage", "nope", "__proto__"]),
    target: ids(p.users),
  })),
  query("routes/api.access.who", "/api/access/who", (p) => ({
    permission: oneOf(["user.read", "settings.manage", "nope"]),
    team: ids(p.teams),
    limit: numbers,
    offset: numbers,
    format: oneOf(["json", "csv", "xml"]),
  })),
  query("routes/api.roles", "/api/roles", () => ({ x: text })),
  query("routes/api.roles.$name", "/api/roles/user"),
  query("routes/api.email-templates", "/api/email-templates", () => ({ x: text })),
  query("routes/api.email-templates.$type.$language", "/api/email-templates/invite/de"),
  query("routes/api.email-templates.$type.$language.preview", "/api/email-templates/invite/de/preview"),
  query("routes/api.access.simulate", "/api/access/simulate", () => ({ x: text })),
  query("routes/api.access-requests", "/api/access-requests", () => ({
    status: oneOf(["pending", "approved", "nope", "__proto__"]),
  })),
  query("routes/api.access-requests.$id.approve", (p) =>
    segment(p.tasks).map((id) => `/api/access-requests/${id}/approve`),
  ),
  query("routes/api.access-requests.$id.deny", (p) =>
    segment(p.tasks).map((id) => `/api/access-requests/${id}/deny`),
  ),
  query("routes/api.access-reviews", "/api/access-reviews", () => ({ x: text })),
  query("routes/api.sessions", "/api/sessions", (p) => ({
    user: ids(p.users),
    ip: text,
    q: text,
    idle: numbers,
    after: text,
  })),
  query("routes/api.sessions.$id", (p) => segment(p.sessions).map((id) => `/api/sessions/${id}`)),
  query("routes/api.access-reviews.$id", (p) => segment(p.tasks).map((id) => `/api/access-reviews/${id}`)),
  query("routes/api.access-reviews.$id.evidence", (p) =>
    segment(p.tasks).map((id) => `/api/access-reviews/${id}/evidence`),
  ),
  query("routes/api.access-reviews.$id.items.$itemId", (p) =>
    fc.tuple(segment(p.tasks), segment(p.users)).map(([r, i]) => `/api/access-reviews/${r}/items/${i}`),
  ),
  query("routes/api.access-reviews.$id.close", (p) =>
    segment(p.tasks).map((id) => `/api/access-reviews/${id}/close`),
  ),
  query("routes/api.users.$id.roles", (p) => segment(p.users).map((id) => `/api/users/${id}/roles`)),
  query("routes/api.users.$id.roles.$grantId", (p) =>
    fc.tuple(segment(p.users), segment(p.tasks)).map(([u, g]) => `/api/users/${u}/roles/${g}`),
  ),
  query("routes/api.ping", "/api/ping", () => ({ x: text })),
  query("routes/api.openapi", "/api/openapi.json", () => ({ x: text })),
  query("routes/api.webhooks.tasks", "/api/webhooks/tasks"),
  query("routes/api.tasks", "/api/tasks", () => ({
    limit: numbers,
    cursor: either(fc.constantFrom("a|b", "2026-01-01T00:00:00.000Z|x", "|", "%|_")),
  })),
  query("routes/api.tasks.$id", tasks("")),
  query("routes/api.tasks.$id.download", tasks("/download")),
  query("routes/api.webhook-endpoints", "/api/webhook-endpoints", () => ({ x: text })),
  query("routes/api.webhook-endpoints.$id", endpoints("")),
  query("routes/api.webhook-endpoints.$id.rotate-secret", endpoints("/rotate-secret")),
  query("routes/api.webhook-endpoints.$id.send-test", endpoints("/test")),
  query("routes/api.webhook-endpoints.$id.deliveries", endpoints("/deliveries"), () => ({
    status: oneOf(["pending", "delivered", "failed", "x"]),
    type: text,
    limit: numbers,
  })),
  query("routes/api.webhook-deliveries.$id.retry", (p) =>
    segment(p.tasks).map((id) => `/api/webhook-deliveries/${id}/retry`),
  ),
  query("routes/api.events", "/api/events", () => ({ lastEventId: text })),
  query("routes/api.notifications", "/api/notifications", () => ({ limit: numbers })),
  query("routes/api.search", "/api/search", () => ({ q: either(names) })),
  query("routes/api.views", "/api/views", () => ({ list: text })),
  query("routes/api.not-found", (p) => segment(p.tasks).map((s) => `/api/${s}`)),
  query("routes/not-found", (p) => segment(p.tasks).map((s) => `/${s}/deeper`)),
  query("routes/dashboard", "/dashboard", () => ({ x: text })),
  query("routes/dashboard-home", "/dashboard", () => ({ x: text })),
  query("routes/dashboard.api-reference", "/dashboard/api-reference", () => ({ x: text })),
  query("routes/dashboard.tasks", "/dashboard/tasks", () => ({
    type: either(fc.constantFrom("report.generate", "users.export", "audit.export", "no.such")),
    status: oneOf(["", "pending", "processing", "completed", "failed", "finished"]),
    after: cursors,
    before: cursors,
  })),
  query(
    "routes/dashboard.users",
    "/dashboard/users",
    (p) => ({
      q: either(fc.constantFrom("%", "_", "root", "ROOT@", "\\%")),
      role: either(fc.constantFrom(...p.roles, "super_admin", "admin")),
      status: oneOf(["", "active", "disabled"]),
      verified: oneOf(["", "yes", "no"]),
      created: oneOf(["", "7d", "30d", "7D"]),
      sort: oneOf(USER_SORTS),
      dir: oneOf(["asc", "desc"]),
      page: numbers,
      after: cursors,
      before: cursors,
      size: numbers,
    }),
    { runs: 20 },
  ),
  query("routes/dashboard.users.$id", (p) => segment(p.users).map((id) => `/dashboard/users/${id}`)),
  query("routes/dashboard.access", "/dashboard/access"),
  query("routes/dashboard.access.requests", "/dashboard/access/requests"),
  query("routes/dashboard.access.reviews", "/dashboard/access/reviews"),
  query("routes/dashboard.sessions", "/dashboard/sessions", (p) => ({
    user: ids(p.users),
    ip: text,
    q: text,
    idle: numbers,
    after: text,
    limit: numbers,
  })),
  query("routes/dashboard.access.roles.$name.policy", () =>
    fc.constantFrom(
      "/dashboard/access/roles/admin/policy",
      "/dashboard/access/roles/super_admin/policy",
      "/dashboard/access/roles/nope/policy",
    ),
  ),
  query("routes/dashboard.access.reviews.$id", (p) =>
    segment(p.tasks).map((id) => `/dashboard/access/reviews/${id}`),
  ),
  // The layout's loader answers with each page's; the index redirects to a page (?section=).
  query("routes/dashboard.settings", "/dashboard/settings/profile"),
  query("routes/dashboard.settings._index", "/dashboard/settings", () => ({ section: text })),
  query("routes/dashboard.settings.profile", "/dashboard/settings/profile"),
  query("routes/dashboard.settings.security", "/dashboard/settings/security", () => ({
    twoFactor: text,
    mustChange: text,
    redirectTo: text,
  })),
  query("routes/dashboard.settings.api-tokens", "/dashboard/settings/api-tokens"),
  query("routes/dashboard.settings.invite", "/dashboard/settings/invite"),
  query("routes/dashboard.settings.system", "/dashboard/settings/system"),
  query("routes/dashboard.settings.webhooks", "/dashboard/settings/webhooks"),
  query("routes/dashboard.settings.email-templates", "/dashboard/settings/email-templates", () => ({
    type: oneOf(["invite", "notification", "nope", "__proto__"]),
    language: oneOf(["en", "de", "fr", "constructor"]),
  })),
  query(
    "routes/dashboard.logs",
    "/dashboard/logs",
    () => ({
      actor: either(emails),
      action: either(fc.constantFrom("auth.login", "user.update", "%")),
      target: either(fc.constantFrom("user:", "user:x", ":", "task")),
      from: dates,
      to: dates,
      page: numbers,
      after: cursors,
      before: cursors,
      size: numbers,
    }),
    { runs: 20 },
  ),
  query("routes/dashboard.teams", "/dashboard/teams", () => ({ q: text })),
  query(
    "routes/dashboard.teams.$id",
    (p) => segment(p.teams).map((id) => `/dashboard/teams/${id}`),
    () => ({
      member: either(names),
    }),
  ),
  query(
    "routes/api.teams.$id.candidates",
    (p) => segment(p.teams).map((id) => `/api/teams/${id}/candidates`),
    () => ({ q: either(names) }),
  ),
  query("routes/dashboard.broadcast", "/dashboard/broadcast", () => ({ x: text })),
];
