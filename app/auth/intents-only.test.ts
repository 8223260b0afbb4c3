import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { intentTableKeys } from "../../test/intent-tables";
import { ROUTE_FILES } from "../../test/route-files";

// The shape of every dashboard action (app/auth/intents.server.ts): an intent table run by
// handleIntents (or handleAction for a form without intents), never an if-chain or a switch on
// the intent, and the domain's change functions called as (actor, input, origin).

const root = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const routes = [...ROUTE_FILES.values()].filter((f) => f.startsWith("app/routes/"));
// Modules an action hands its whole form to (Settings' pages: the account's and the workspace's).
const ACTION_MODULES = [
  "app/settings/account-settings.server.ts",
  "app/settings/workspace-settings.server.ts",
  "app/users/access-request-page.server.ts",
  "app/tasks/access-review-page.server.ts",
  "app/users/role-policy-page.server.ts",
  "app/users/sessions-page.server.ts",
  "app/settings/email-templates-page.server.ts",
];

describe("actions are intent tables", () => {
  it("no route compares or switches on the intent", () => {
    // The server half of a route module: what comes before its page component (which may compare
    // the pending submission's intent to show a spinner).
    const serverPart = (f: string) => read(f).split(/^export default /m)[0]!;
    const offenders = [...routes, ...ACTION_MODULES].filter((f) =>
      /\bintent"?\)?\s*[!=]==?\s*["'`]|switch\s*\(\s*(\w+\.)*intent\b|\.get\("intent"\)/.test(serverPart(f)),
    );
    // The notifications API answers in the JSON error contract, not a page form's.
    expect(offenders.filter((f) => f !== "app/routes/api.notifications.ts")).toEqual([]);
  });

  it("every dashboard action runs through handleIntents or handleAction", () => {
    const actions = routes.filter(
      (f) => f.includes("/dashboard") && /export (async )?(function|const) action\b/.test(read(f)),
    );
    expect(actions.length).toBeGreaterThan(5);
    const direct = actions.filter((f) => {
      const source = read(f);
      const delegated = ACTION_MODULES.some((m) => source.includes(m.split("/").pop()!.replace(/\.ts$/, "")));
      return !/handleIntents\(|handleAction\(/.test(source) && !delegated;
    });
    expect(direct).toEqual([]);
    for (const f of [...actions, ...ACTION_MODULES].filter((f) => read(f).includes("handleIntents(")))
      expect(intentTableKeys(read(f)).length, f).toBeGreaterThan(0);
  });

  it("the domain's change functions are called as (actor, input, origin)", () => {
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(`${dir}/${e.name}`) : /\.tsx?$/.test(e.name) ? [`${dir}/${e.name}`] : [],
      );
    const changes =
      /\b(inviteUser|cancelInvitation|resendInvitation|updateProfile|requestEmailChange|changePassword|revokeMySessions|applySettingsChanges|updateUser|setUserStatus|deleteUser|revokeSession|sendAccountLink|bulkUsers|createTeam|updateTeam|deleteTeam|setMember|removeMember|updateMenuItem|moveMenuItem|deleteRole|sendBroadcast)\(\s*(args|origin\(?\)?|\{\s*request)\s*,/;
    const offenders = [...files("app"), ...files("test")].filter((f) => changes.test(read(f)));
    expect(offenders).toEqual([]);
  });
});
