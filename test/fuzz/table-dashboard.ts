import fc from "fast-check";
import { NOTICE_LEVELS } from "../../app/notifications/levels";
import { CONFIG_KEYS } from "../../app/system-settings/config-keys";
import { TEAM_ROLES } from "../../app/teams/team-roles";
import type { Pools } from "./fixtures";
import { ANY_INTENT, type FuzzTarget, formIntent } from "./target";
import {
  either,
  emails,
  ids,
  names,
  numbers,
  oneOf,
  passwords,
  segment,
  text,
  uuids,
  webauthnAnswers,
} from "./values";

// The dashboard's page actions, intent by intent (test/fuzz.test.ts checks that every intent the
// route modules test for is here).

const USERS = "routes/dashboard.users";
const USER = "routes/dashboard.users.$id";
const ACCESS = "routes/dashboard.access";
const TEAMS = "routes/dashboard.teams";
const TEAM = "routes/dashboard.teams.$id";
/** A Settings page's route (app/access/settings-pages.ts): each page takes only its own intents. */
const settingsRoute = (section: string) => `routes/dashboard.settings.${section}`;
const TASKS = "routes/dashboard.tasks";

const userPath = (p: Pools) => segment(p.users).map((id) => `/dashboard/users/${id}`);
const teamPath = (p: Pools) => segment(p.teams).map((id) => `/dashboard/teams/${id}`);
const roleName = either(fc.constantFrom("fuzz_role", "auditor", "super_admin", "Bad Name"));
const menuUrl = either(
  fc.constantFrom("/dashboard/x", "/dashboard", "/dashboard/tasks", "https://example.test", "javascript:x"),
);
// "All matching" only where it does no harm to the pools the other runs draw from (never delete).
const bulkScope = either(fc.constantFrom("selected", "matching"));
const reauthCodes = either(fc.constantFrom("000000", "123456", "abcde-fghij", "1".repeat(21)));

const REQUESTS = "routes/dashboard.access.requests";
const REVIEWS = "routes/dashboard.access.reviews";
const NETWORKS = "routes/dashboard.access.roles.$name.policy";
const SESSIONS = "routes/dashboard.sessions";
const requestHours = either(fc.constantFrom("", "1", "720", "721", "0", "-3"));

export const DASHBOARD: FuzzTarget[] = [
  formIntent(REQUESTS, "/dashboard/access/requests", "request", (p) => ({
    role: either(fc.constantFrom("admin", "user", "super_admin", "nope")),
    team: ids(p.teams),
    hours: numbers,
    reason: names,
  })),
  formIntent(REQUESTS, "/dashboard/access/requests", "approve", (p) => ({
    request: ids(p.tasks),
    comment: names,
  })),
  formIntent(REQUESTS, "/dashboard/access/requests", "deny", (p) => ({
    request: ids(p.tasks),
    comment: names,
  })),
  formIntent(REVIEWS, "/dashboard/access/reviews", "open", (p) => ({
    name: names,
    role: either(fc.constantFrom("admin", "manager", "super_admin", "nope", "")),
    team: ids(p.teams),
    dueAt: either(fc.constantFrom("2099-01-01", "2020-01-01", "2099-02-30", "tomorrow", "")),
    onOverdue: either(fc.constantFrom("keep", "revoke", "nope")),
  })),
  formIntent(REVIEWS, "/dashboard/access/reviews", "decide", (p) => ({
    review: ids(p.tasks),
    decision: either(fc.constantFrom("keep", "revoke", "nope")),
    items: ids(p.users),
  })),
  formIntent(REVIEWS, "/dashboard/access/reviews", "close", (p) => ({ review: ids(p.tasks) })),
  formIntent(
    NETWORKS,
    () => fc.constantFrom("/dashboard/access/roles/admin/policy", "/dashboard/access/roles/nope/policy"),
    "sessions",
    (p) => ({ roleId: ids(p.roles), idleMinutes: numbers, maxHours: numbers }),
  ),
  formIntent(SESSIONS, "/dashboard/sessions", "end", (p) => ({ session: ids(p.sessions) })),
  formIntent(SESSIONS, "/dashboard/sessions", "end-selected", (p) => ({ sessions: ids(p.sessions) })),
  formIntent(SESSIONS, "/dashboard/sessions", "end-everyone", () => ({})),
  ...(["preview", "save"] as const).map((intent) =>
    formIntent(
      NETWORKS,
      () => fc.constantFrom("/dashboard/access/roles/admin/policy", "/dashboard/access/roles/nope/policy"),
      intent,
      (p) => ({
        roleId: ids(p.roles),
        networks: either(
          fc.constantFrom("10.0.0.0/8", "127.0.0.1\n::1/128", "10.0.0.0/33", "nope", "", " , "),
        ),
      }),
    ),
  ),
  formIntent(
    `${REVIEWS}.$id`,
    (p) => segment(p.tasks).map((id) => `/dashboard/access/reviews/${id}`),
    "decide",
    (p) => ({
      review: ids(p.tasks),
      decision: either(fc.constantFrom("keep", "revoke")),
      items: ids(p.users),
    }),
  ),
  formIntent("routes/dashboard-home", "/dashboard?index", "setup-done", () => ({
    step: either(fc.constantFrom("sso", "backups", "mail", "twoFactor")),
  })),
  formIntent(USERS, "/dashboard/users", "create", (p) => ({
    name: names,
    email: emails,
    password: passwords,
    "roles[]": ids(p.roles),
  })),
  formIntent(USERS, "/dashboard/users", "invite", (p) => ({ email: emails, "roles[]": ids(p.roles) })),
  formIntent(USERS, "/dashboard/users", "resend-invite", (p) => ({ invitationId: ids(p.invitations) })),
  formIntent(USERS, "/dashboard/users", "cancel-invite", (p) => ({ invitationId: ids(p.invitations) })),
  formIntent(USERS, "/dashboard/users", "invite-link", (p) => ({ invitationId: ids(p.invitations) })),
  formIntent(USERS, "/dashboard/users", "bulk-disable", (p) => ({ "ids[]": ids(p.users) })),
  formIntent(USERS, "/dashboard/users", "bulk-delete", (p) => ({ "ids[]": ids(p.users) })),
  formIntent(USERS, "/dashboard/users", "bulk-enable", (p) => ({ "ids[]": ids(p.users), scope: bulkScope })),
  formIntent(USERS, "/dashboard/users", "bulk-add-role", (p) => ({
    "ids[]": ids(p.users),
    roleId: ids(p.roles),
  })),
  formIntent(USERS, "/dashboard/users", "bulk-change-roles", (p) => ({
    "ids[]": ids(p.users),
    mode: either(fc.constantFrom("add", "remove", "replace", "keep")),
    "roleIds[]": ids(p.roles),
  })),
  formIntent(USERS, "/dashboard/users", "preview-bulk-roles", (p) => ({
    "ids[]": ids(p.users),
    mode: either(fc.constantFrom("add", "remove", "replace", "keep")),
    "roleIds[]": ids(p.roles),
    scope: bulkScope,
  })),
  formIntent(USERS, "/dashboard/users", "bulk-remove-role", (p) => ({
    "ids[]": ids(p.users),
    roleId: ids(p.roles),
  })),
  formIntent(USERS, "/dashboard/users", "bulk-add-to-team", (p) => ({
    "ids[]": ids(p.users),
    teamId: ids(p.teams),
    scope: bulkScope,
  })),
  formIntent(USERS, "/dashboard/users", ANY_INTENT, (p) => ({ "ids[]": ids(p.users), name: names })),

  formIntent(USER, userPath, "update", (p) => ({ name: names, email: emails, "roles[]": ids(p.roles) })),
  formIntent(USER, userPath, "disable"),
  formIntent(USER, userPath, "enable"),
  formIntent(USER, userPath, "revoke-session", (p) => ({ session: ids(p.sessions) })),
  formIntent(USER, userPath, "revoke-api-token", (p) => ({ apiToken: ids(p.apiTokens) })),
  formIntent(USER, userPath, "grant-role", (p) => ({
    role: oneOf(["admin", "user", "super_admin", "nope"]),
    team: ids(p.teams),
    until: either(fc.constantFrom("2099-01-01", "2001-01-01", "", "tomorrow")),
  })),
  formIntent(USER, userPath, "preview-grant", (p) => ({
    role: oneOf(["admin", "user", "super_admin", "nope"]),
    team: ids(p.teams),
  })),
  formIntent(USER, userPath, "revoke-grant", (p) => ({ grant: ids(p.tasks) })),
  formIntent(USER, userPath, "send-reset"),
  formIntent(USER, userPath, "resend-verification"),
  formIntent(USER, userPath, "delete"),
  // A fresh session each run: a View as that starts would turn the shared admin session into someone else.
  formIntent(USER, userPath, "view-as", () => ({}), { freshSession: true }),
  formIntent(USER, userPath, "reset-two-factor"),
  formIntent(USER, userPath, ANY_INTENT, () => ({ name: names })),

  formIntent(ACCESS, "/dashboard/access", "role-requestable", (p) => ({
    roleId: ids(p.roles),
    hours: requestHours,
  })),
  formIntent(ACCESS, "/dashboard/access", "create-role", (p) => ({
    name: roleName,
    label: names,
    "translations.de": names,
    "permissions[]": oneOf(p.permissions),
    currentPassword: passwords,
  })),
  formIntent(ACCESS, "/dashboard/access", "update-role", (p) => ({
    roleId: ids(p.roles),
    label: names,
    "translations.de": names,
    "permissions[]": oneOf(p.permissions),
    currentPassword: passwords,
  })),
  formIntent(ACCESS, "/dashboard/access", "save-matrix", (p) => ({
    "roles[0].roleId": ids(p.roles),
    "roles[0].label": names,
    "roles[0].translations.de": names,
    "roles[0].permissions": oneOf(p.permissions),
    "roles[1].roleId": ids(p.roles),
    "roles[1].permissions": oneOf(p.permissions),
  })),
  formIntent(ACCESS, "/dashboard/access", "preview-matrix", (p) => ({
    "roles[0].roleId": ids(p.roles),
    "roles[0].label": names,
    "roles[0].permissions": oneOf(p.permissions),
  })),
  formIntent(ACCESS, "/dashboard/access", "save-menu", (p) => ({
    "items[0].id": ids(p.menu),
    "items[0].title": names,
    "items[0].translations.de": names,
    "items[0].url": menuUrl,
    "items[0].icon": oneOf(["users", "settings", "shield", "x"]),
    "items[0].requiredPermission": oneOf(p.permissions),
    "items[1].id": ids(p.menu),
    "items[1].url": menuUrl,
  })),
  formIntent(ACCESS, "/dashboard/access", "delete-role", (p) => ({ roleId: ids(p.roles) })),
  formIntent(ACCESS, "/dashboard/access", "update-menu", (p) => ({
    id: ids(p.menu),
    title: names,
    "translations.de": names,
    url: menuUrl,
    icon: oneOf(["users", "settings", "shield", "x"]),
    requiredPermission: oneOf(p.permissions),
  })),
  formIntent(ACCESS, "/dashboard/access", "move-up", (p) => ({ id: ids(p.menu) })),
  formIntent(ACCESS, "/dashboard/access", "move-down", (p) => ({ id: ids(p.menu) })),
  formIntent(ACCESS, "/dashboard/access", "add-menu-item", (p) => ({
    title: names,
    url: menuUrl,
    icon: oneOf(["Users", "Folder", "x"]),
    requiredPermission: oneOf(p.permissions),
  })),
  formIntent(ACCESS, "/dashboard/access", "hide-menu-item", (p) => ({ id: ids(p.menu) })),
  formIntent(ACCESS, "/dashboard/access", "show-menu-item", (p) => ({ id: ids(p.menu) })),
  formIntent(ACCESS, "/dashboard/access", ANY_INTENT, (p) => ({ id: ids(p.menu), roleId: ids(p.roles) })),

  // A toast's Undo carries only its token: anything made up is refused (a real one is single-use).
  formIntent("routes/api.undo", "/api/undo", undefined, () => ({ token: text })),

  formIntent(TASKS, "/dashboard/tasks", "clear", (p) => ({ taskId: ids(p.tasks) })),
  formIntent(TASKS, "/dashboard/tasks", "clear-finished"),
  formIntent(TASKS, "/dashboard/tasks", ANY_INTENT, (p) => ({ taskId: ids(p.tasks) })),

  formIntent(TEAMS, "/dashboard/teams", "create", () => ({ name: names, description: text })),
  formIntent(TEAMS, "/dashboard/teams", ANY_INTENT, () => ({ name: names })),

  formIntent(TEAM, teamPath, "rename", () => ({ name: names, description: text })),
  formIntent(TEAM, teamPath, "delete"),
  formIntent(TEAM, teamPath, "set-member", (p) => ({ userId: ids(p.users), teamRole: oneOf(TEAM_ROLES) })),
  formIntent(TEAM, teamPath, "remove-member", (p) => ({ userId: ids(p.users) })),
  formIntent(TEAM, teamPath, "grant-role", (p) => ({
    userId: ids(p.users),
    role: oneOf(["admin", "manager", "super_admin", "nope"]),
    until: either(fc.constantFrom("2099-01-01", "", "x")),
  })),
  formIntent(TEAM, teamPath, "preview-grant", (p) => ({
    userId: ids(p.users),
    role: oneOf(["admin", "manager", "super_admin", "nope"]),
  })),
  formIntent(TEAM, teamPath, "revoke-grant", (p) => ({ userId: ids(p.users), grant: ids(p.tasks) })),
  formIntent(TEAM, teamPath, "add-members", (p) => ({
    userIds: ids(p.users),
    "userIds[]": ids(p.users),
    teamRole: oneOf(TEAM_ROLES),
  })),
  formIntent(TEAM, teamPath, ANY_INTENT, (p) => ({ userId: ids(p.users) })),

  // An audience of roles or teams nobody is in is refused with 400 after the notice is recorded
  // (the page says so), so a refusal here may write the broadcast row.
  formIntent(
    "routes/dashboard.broadcast",
    "/dashboard/broadcast",
    undefined,
    (p) => ({
      title: names,
      message: names,
      level: oneOf(NOTICE_LEVELS),
      link: either(fc.constantFrom("", "/dashboard", "https://example.test/x", "javascript:alert(1)")),
      audience: oneOf(["all", "roles", "teams"]),
      "roleIds[]": ids(p.roles),
      "teamIds[]": ids(p.teams),
      email: oneOf(["on", "off"]),
    }),
    { mayWrite: ["broadcast"] },
  ),

  formIntent(settingsRoute("profile"), "/dashboard/settings/profile", "profile", () => ({ name: names })),
  formIntent(settingsRoute("profile"), "/dashboard/settings/profile", "language", () => ({
    locale: either(fc.constantFrom("", "de", "en", "xx", "../en", "DE")),
  })),
  formIntent(settingsRoute("profile"), "/dashboard/settings/profile", "email", () => ({
    email: emails,
    currentPassword: passwords,
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "password", () => ({
    currentPassword: passwords,
    newPassword: passwords,
    confirm: passwords,
    redirectTo: either(fc.constantFrom("/dashboard/users", "//evil.example", "/api/tasks", "/\\evil")),
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "revoke-session", (p) => ({
    session: ids(p.sessions),
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "revoke-others"),
  // The mail key and sender ask for the password again (right, wrong, missing).
  // Re-authentication (assertReauthenticated): the password, or a code where the account has two-factor.
  formIntent(settingsRoute("system"), "/dashboard/settings/system", "system", () => ({
    ...Object.fromEntries(CONFIG_KEYS.map((key) => [key, key === "EMAIL_FROM" ? emails : numbers])),
    APP_NAME: names,
    currentPassword: passwords,
    reauthCode: reauthCodes,
  })),
  formIntent(settingsRoute("system"), "/dashboard/settings/system", "system", () => ({
    reset: oneOf(CONFIG_KEYS),
    currentPassword: passwords,
    reauthCode: reauthCodes,
  })),
  formIntent(settingsRoute("invite"), "/dashboard/settings/invite", "invite", (p) => ({
    email: emails,
    "roles[]": ids(p.roles),
  })),
  // Two-factor (app/settings/two-factor-settings.server.ts). Role ids are never the pool's: a
  // policy naming the fuzzing super admin's role would gate every later request.
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "two-factor-start", () => ({
    currentPassword: passwords,
    reauthCode: reauthCodes,
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "two-factor-confirm", () => ({
    code: either(fc.constantFrom("000000", "123456", "abcde-fghij")),
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "two-factor-disable", () => ({
    currentPassword: passwords,
    reauthCode: reauthCodes,
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "two-factor-recovery-codes", () => ({
    currentPassword: either(fc.constantFrom("not the password")),
    reauthCode: reauthCodes,
  })),
  formIntent(settingsRoute("system"), "/dashboard/settings/system", "two-factor-roles", () => ({
    "roles[]": either(fc.constantFrom("7b4f7f6e-6d1c-4c52-9d8f-111111111111", "not-a-role")),
  })),
  // Adding a passkey and creating a token ask for the password again (right, wrong, missing).
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "passkey-options", () => ({
    currentPassword: passwords,
    reauthCode: reauthCodes,
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "passkey-add", () => ({
    name: names,
    response: webauthnAnswers,
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "passkey-rename", () => ({
    id: either(uuids),
    name: names,
  })),
  formIntent(settingsRoute("security"), "/dashboard/settings/security", "passkey-remove", () => ({
    id: either(uuids),
  })),
  formIntent(settingsRoute("api-tokens"), "/dashboard/settings/api-tokens", "create-api-token", (p) => ({
    name: names,
    expiresInDays: either(fc.constantFrom("1", "90", "365", "366", "0", "-1", "1e3")),
    "permissions[]": oneOf(p.permissions),
    currentPassword: passwords,
    reauthCode: reauthCodes,
  })),
  formIntent(settingsRoute("api-tokens"), "/dashboard/settings/api-tokens", "revoke-api-token", (p) => ({
    apiToken: ids(p.apiTokens),
  })),
  // Addresses from a fixed list: any other would be looked up in DNS when saved.
  formIntent(settingsRoute("webhooks"), "/dashboard/settings/webhooks", "webhook-create", () => ({
    url: either(
      fc.constantFrom(
        "https://127.0.0.1/h",
        "https://10.0.0.1/h",
        "http://localhost/h",
        "ftp://x/y",
        "javascript:x",
      ),
    ),
    description: names,
    "events[]": either(fc.constantFrom("*", "user.created", "audit.entry", "nope")),
    enabled: either(fc.constantFrom("on", "1", "")),
  })),
  ...["webhook-toggle", "webhook-rotate", "webhook-test", "webhook-delete", "webhook-replay"].map((intent) =>
    formIntent(settingsRoute("webhooks"), "/dashboard/settings/webhooks", intent, () => ({
      endpoint: either(uuids),
      enabled: either(fc.constantFrom("0", "1", "2")),
      hours: either(fc.constantFrom("1", "24", "0", "169", "x")),
    })),
  ),
  formIntent(settingsRoute("webhooks"), "/dashboard/settings/webhooks", "webhook-retry", () => ({
    message: either(uuids),
  })),
  formIntent(settingsRoute("profile"), "/dashboard/settings/profile", ANY_INTENT, () => ({ name: names })),
  ...["save", "preview", "reset", "restore", "test"].map((intent) =>
    formIntent(settingsRoute("email-templates"), "/dashboard/settings/email-templates", intent, () => ({
      type: either(fc.constantFrom("invite", "notification", "reset-password", "__proto__")),
      language: either(fc.constantFrom("en", "de", "fr")),
      subject: either(fc.constantFrom("Hi {{appName}}", "{{nope}}", "evil.com")),
      message: either(fc.constantFrom("Hello,\nthere", "{{", "\u0007")),
      version: either(fc.constantFrom("1", "2", "0", "-1", "1e9")),
    })),
  ),
];
