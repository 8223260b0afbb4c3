import fc from "fast-check";
import type { Pools } from "./fixtures";
import { ANY_INTENT, apiCall, type FuzzTarget, formIntent, query } from "./target";
import { either, ids, json, names, oneOf, segment, text } from "./values";

// Provisioning directories (app/directory): the settings page's intents, Users → Import, and /scim/v2 as callers
// with a session or none (refused: only a directory token opens it; hostile SCIM input with a
// valid token is app/directory/scim-fuzz.test.ts).

const PAGE = "routes/dashboard.settings.directory";
const directory = (p: Pools) => ({
  name: names,
  domains: either(fc.constantFrom("fuzz.example", "a.example, b.example", "@x", ",", "x".repeat(300))),
  defaultRoleId: ids(p.roles),
  "groupRoles[0].group": either(fc.constantFrom("Engineering", "")),
  "groupRoles[0].roleId": ids(p.roles),
  "groupRoles[0].team": oneOf(["on", ""]),
  sendPasswordLink: oneOf(["on", ""]),
});
const scimPath = (p: Pools) =>
  fc
    .tuple(fc.constantFrom("Users", "Groups", "ServiceProviderConfig", "Schemas"), segment(p.tasks))
    .map(([c, s]) => `/scim/v2/${c}/${s}`);

export const DIRECTORY_TARGETS: FuzzTarget[] = [
  query(PAGE, "/dashboard/settings/directory"),
  formIntent(PAGE, "/dashboard/settings/directory", "create-directory", directory),
  formIntent(PAGE, "/dashboard/settings/directory", "update-directory", (p) => ({
    ...directory(p),
    id: ids([]),
  })),
  ...["rotate-directory-token", "revoke-directory-token", "delete-directory"].map((intent) =>
    formIntent(PAGE, "/dashboard/settings/directory", intent, () => ({ id: ids([]) })),
  ),
  formIntent(PAGE, "/dashboard/settings/directory", ANY_INTENT, () => ({ id: text })),
  // New sign-in alerts (app/auth/sign-in-alerts.server.ts): the public "This wasn't me" page and
  // the Settings intents.
  query("routes/account.not-me", "/account/not-me", () => ({ token: text }), { caller: "anon" }),
  formIntent("routes/account.not-me", "/account/not-me", undefined, () => ({ token: text }), {
    caller: "anon",
  }),
  formIntent("routes/dashboard.settings.security", "/dashboard/settings/security", "forget-device", () => ({
    device: either(fc.uuid().map(String)),
  })),
  formIntent("routes/dashboard.settings.security", "/dashboard/settings/security", "sign-in-alerts", () => ({
    on: either(fc.constantFrom("0", "1")),
  })),
  query("routes/dashboard.users.import", "/dashboard/users/import"),
  ...["preview", "import", ANY_INTENT].map((intent) =>
    formIntent("routes/dashboard.users.import", "/dashboard/users/import", intent, () => ({
      file: either(
        fc.constantFrom("name,email\nFuzz,fuzz@example.com\n", "email\n=cmd,x\n", "\u00ff\u00fe", ""),
      ),
      invite: oneOf(["on", ""]),
    })),
  ),
  query("routes/scim.v2.$", scimPath, () => ({ filter: text, startIndex: text, count: text })),
  apiCall("routes/scim.v2.$", scimPath, () => ({ userName: text, displayName: text, Operations: json })),
];
