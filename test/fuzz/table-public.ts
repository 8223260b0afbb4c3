import fc from "fast-check";
import { THEMES } from "../../app/http/theme.server";
import { TASK_REGISTRY } from "../../app/tasks/registry.server";
import type { Pools } from "./fixtures";
import { ANY_INTENT, apiCall, type FuzzTarget, formIntent } from "./target";
import {
  dates,
  either,
  emails,
  ids,
  json,
  member,
  names,
  numbers,
  oneOf,
  passwords,
  segment,
  text,
  webauthnAnswers,
} from "./values";

// The public forms and the API endpoints that take a body.

const token = either(fc.base64String({ minLength: 10, maxLength: 60 }));
const anon = { caller: "anon" as const };

/** Types and languages the product has, and some it has not. */
const templatePath = () =>
  fc
    .tuple(
      fc.constantFrom("invite", "notification", "reset-password", "nope", "__proto__", "%00"),
      fc.constantFrom("en", "de", "fr", "constructor"),
    )
    .map(([type, language]) => `/api/email-templates/${type}/${language}`);
const templateWords = () => ({
  subject: either(fc.constantFrom("Welcome to {{appName}}", "{{unknown}}", "{{appName", "x".repeat(151))),
  message: either(fc.constantFrom("Hello {{userName}},\nwelcome.", "see evil.com", "a@b.org", "\u202eabc")),
  footer: member(fc.constantFrom(null, "", "Thanks")),
});

export const PUBLIC: FuzzTarget[] = [
  formIntent(
    "routes/login",
    "/login",
    undefined,
    () => ({
      email: emails,
      password: passwords,
      redirectTo: either(fc.constantFrom("/dashboard", "/dashboard/users?x=1", "//evil.example", "/\\evil")),
    }),
    anon,
  ),
  // Without the pending state the password step sets, every code is refused (redirect to /login).
  formIntent(
    "routes/login.two-factor",
    "/login/two-factor",
    undefined,
    () => ({ code: either(fc.constantFrom("000000", "abcde-fghij")) }),
    anon,
  ),
  // Without the pending link the SSO callback holds for this browser, every proof is refused.
  formIntent("routes/login.sso-link", "/login/sso-link", "password", () => ({ password: passwords }), anon),
  formIntent(
    "routes/login.sso-link",
    "/login/sso-link",
    "code",
    () => ({ code: either(fc.constantFrom("000000", "abcde-fghij")) }),
    anon,
  ),
  formIntent("routes/login.sso-link", "/login/sso-link", ANY_INTENT, () => ({ password: passwords }), anon),
  formIntent("routes/login.passkey", "/login/passkey", undefined, () => ({}), anon),
  formIntent(
    "routes/login.passkey",
    "/login/passkey",
    undefined,
    () => ({
      response: webauthnAnswers,
      redirectTo: either(fc.constantFrom("/dashboard", "//evil.example")),
    }),
    anon,
  ),
  // Signing out ends the session it is sent with, so every run brings a new one.
  formIntent("routes/logout", "/logout", undefined, () => ({ anything: text }), { freshSession: true }),
  formIntent("routes/impersonation.stop", "/impersonation/stop", undefined, () => ({ anything: text }), {
    freshSession: true,
  }),
  formIntent("routes/theme", "/theme", undefined, () => ({ theme: oneOf(THEMES) }), anon),
  formIntent(
    "routes/register",
    "/register",
    undefined,
    () => ({ name: names, email: emails, password: passwords }),
    anon,
  ),
  formIntent("routes/check-inbox", "/check-inbox", "retry", (p) => ({ d: ids(p.deliveries) }), anon),
  formIntent("routes/check-inbox", "/check-inbox", ANY_INTENT, (p) => ({ d: ids(p.deliveries) }), anon),
  formIntent(
    "routes/resend-verification",
    "/resend-verification",
    undefined,
    () => ({ email: emails }),
    anon,
  ),
  formIntent("routes/forgot-password", "/forgot-password", undefined, () => ({ email: emails }), anon),
  formIntent(
    "routes/reset-password",
    "/reset-password",
    undefined,
    () => ({ token, password: passwords, confirm: passwords }),
    anon,
  ),
  formIntent(
    "routes/accept-invite",
    "/accept-invite",
    undefined,
    () => ({ token, name: names, password: passwords, confirm: passwords }),
    anon,
  ),
];

const taskPayload = member(
  fc.record(
    {
      durationMs: fc.oneof(fc.integer({ min: -10, max: 100 }), fc.constant(Number.MAX_VALUE), json),
      fail: fc.oneof(fc.boolean(), json),
      from: dates,
      to: dates,
      q: text,
      broadcastId: text,
    },
    { requiredKeys: [] },
  ),
);

const webhookUrls = fc.constantFrom(
  "https://127.0.0.1/h",
  "http://localhost:9/h",
  "https://[::1]/h",
  "https://10.0.0.1/h",
  "https://169.254.169.254/latest",
  "ftp://127.0.0.1/h",
  "javascript:alert(1)",
  "https://user:pw@127.0.0.1/h",
  "",
);
const webhookEvents = fc.constantFrom("user.created", "audit.entry", "__proto__", "*", "nope");
const webhookPath = (suffix: string) => (p: Pools) =>
  segment(p.tasks).map((id) => `/api/webhook-endpoints/${id}${suffix}`);

const taskPath = (p: Pools) => segment(p.tasks).map((id) => `/api/tasks/${id}`);

export const API: FuzzTarget[] = [
  apiCall(
    "routes/api.tasks",
    "/api/tasks",
    () => ({
      type: member(fc.constantFrom(...TASK_REGISTRY.keys(), "nope", "__proto__")),
      payload: taskPayload,
    }),
    { runs: 50 },
  ),
  apiCall("routes/api.mail", "/api/mail", () => ({ to: member(emails) })),
  apiCall("routes/api.access.sync", "/api/access/sync", () => ({ anything: json })),
  apiCall(
    "routes/api.users.$id.roles",
    (p) => segment(p.users).map((id) => `/api/users/${id}/roles`),
    (p) => ({
      role: member(fc.constantFrom("user", "admin", "super_admin", "nope", "__proto__")),
      team: member(ids(p.teams)),
      expiresAt: member(fc.oneof(dates, text)),
    }),
  ),
  apiCall("routes/api.access.simulate", "/api/access/simulate", (p) => ({
    changes: member(
      fc.oneof(
        json,
        fc.array(
          fc.record({
            op: fc.constantFrom("grant", "revoke", "permissions", "__proto__"),
            user: fc.constantFrom(...p.users, "nope"),
            role: fc.constantFrom("admin", "user", "nope"),
            add: fc.array(fc.constantFrom("user.read", "nope"), { maxLength: 2 }),
          }),
          { maxLength: 3 },
        ),
      ),
    ),
  })),
  apiCall(
    "routes/api.roles.$name",
    () => fc.constantFrom("/api/roles/user", "/api/roles/super_admin", "/api/roles/nope", "/api/roles/%00"),
    () => ({
      label: text,
      description: text,
      permissions: member(fc.array(fc.constantFrom("user.read", "nope", "__proto__"), { maxLength: 3 })),
    }),
    { verb: "PATCH" },
  ),
  apiCall("routes/api.email-templates.$type.$language", templatePath, templateWords, { verb: "PUT" }),
  apiCall(
    "routes/api.email-templates.$type.$language.preview",
    () => templatePath().map((path) => `${path}/preview`),
    templateWords,
  ),
  apiCall("routes/api.access-requests", "/api/access-requests", (p) => ({
    role: member(oneOf(["admin", "user", "super_admin", "nope", "__proto__"])),
    team: member(ids(p.teams)),
    hours: member(either(fc.integer({ min: -5, max: 1000 }))),
    reason: text,
  })),
  apiCall(
    "routes/api.access-requests.$id.approve",
    (p) => segment(p.tasks).map((id) => `/api/access-requests/${id}/approve`),
    () => ({ comment: text }),
  ),
  apiCall(
    "routes/api.access-requests.$id.deny",
    (p) => segment(p.tasks).map((id) => `/api/access-requests/${id}/deny`),
    () => ({ comment: text }),
  ),
  apiCall("routes/api.access-reviews", "/api/access-reviews", (p) => ({
    name: text,
    role: member(oneOf(["admin", "manager", "super_admin", "nope", "__proto__"])),
    team: member(ids(p.teams)),
    dueAt: member(
      oneOf(["2099-01-01T00:00:00Z", "2020-01-01T00:00:00Z", "tomorrow", "2099-13-45T99:00:00Z"]),
    ),
    onOverdue: member(oneOf(["keep", "revoke", "nope"])),
  })),
  apiCall(
    "routes/api.access-reviews.$id.items.$itemId",
    (p) =>
      fc.tuple(segment(p.tasks), segment(p.users)).map(([r, i]) => `/api/access-reviews/${r}/items/${i}`),
    () => ({ decision: member(oneOf(["keep", "revoke", "nope", "__proto__"])) }),
  ),
  apiCall("routes/api.access-reviews.$id.close", (p) =>
    segment(p.tasks).map((id) => `/api/access-reviews/${id}/close`),
  ),
  apiCall("routes/api.sessions", "/api/sessions"),
  apiCall("routes/api.email-templates", "/api/email-templates"),
  apiCall("routes/api.sessions.$id", (p) => segment(p.sessions).map((id) => `/api/sessions/${id}`)),
  apiCall("routes/api.users.$id.roles.$grantId", (p) =>
    fc.tuple(segment(p.users), segment(p.tasks)).map(([u, g]) => `/api/users/${u}/roles/${g}`),
  ),
  apiCall(
    "routes/api.webhooks.tasks",
    "/api/webhooks/tasks",
    (p) => ({
      taskId: member(ids(p.tasks)),
      status: member(oneOf(["completed", "failed", "pending"])),
      result: json,
    }),
    { signed: true, caller: "anon", runs: 60 },
  ),
  formIntent("routes/api.notifications", "/api/notifications", "read", (p) => ({ id: ids(p.notifications) })),
  formIntent("routes/api.notifications", "/api/notifications", "read-all"),
  formIntent("routes/api.notifications", "/api/notifications", ANY_INTENT, (p) => ({
    id: ids(p.notifications),
  })),
  formIntent("routes/api.views", "/api/views", "view-create", (p) => ({
    list: oneOf(["users", "audit", "teams"]),
    name: names,
    query: either(fc.constantFrom("q=a&sort=name", "from=2026-02-30", "size=9999&after=x", "")),
    sharedRoleId: ids(p.roles),
  })),
  formIntent("routes/api.views", "/api/views", "view-rename", (p) => ({ id: ids(p.views), name: names })),
  formIntent("routes/api.views", "/api/views", "view-delete", (p) => ({ id: ids(p.views) })),
  formIntent("routes/api.views", "/api/views", ANY_INTENT, (p) => ({ id: ids(p.views), name: names })),
  apiCall("routes/api.tasks.$id", taskPath, () => ({ status: json })),
  // Addresses only from a fixed list: any other would be looked up in DNS when saved.
  apiCall("routes/api.webhook-endpoints", "/api/webhook-endpoints", () => ({
    url: member(webhookUrls),
    events: member(fc.oneof(fc.constant(["*"]), fc.array(webhookEvents, { maxLength: 3 }), json)),
    description: member(text),
    enabled: member(fc.oneof(fc.boolean(), json)),
  })),
  apiCall("routes/api.webhook-endpoints.$id", webhookPath(""), () => ({
    url: member(webhookUrls),
    enabled: member(fc.oneof(fc.boolean(), json)),
  })),
  apiCall("routes/api.webhook-endpoints.$id.rotate-secret", webhookPath("/rotate-secret")),
  apiCall("routes/api.webhook-endpoints.$id.send-test", webhookPath("/test")),
  apiCall("routes/api.webhook-endpoints.$id.deliveries", webhookPath("/deliveries"), () => ({
    since: member(fc.oneof(dates, text)),
  })),
  apiCall("routes/api.webhook-deliveries.$id.retry", (p) =>
    segment(p.tasks).map((id) => `/api/webhook-deliveries/${id}/retry`),
  ),
  apiCall(
    "routes/api.not-found",
    (p) => segment(p.tasks).map((s) => `/api/${s}`),
    () => ({ x: json }),
  ),
  apiCall(
    "routes/not-found",
    (p) => segment(p.tasks).map((s) => `/${s}/x`),
    () => ({ x: json }),
  ),
  apiCall(
    "routes/api.tasks.$id.download",
    (p) => segment(p.tasks).map((s) => `/api/tasks/${s}/download`),
    () => ({
      x: numbers,
    }),
  ),
];
