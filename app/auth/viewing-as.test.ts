import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { createUser, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { intentTableKeys } from "../../test/intent-tables";
import { isOwnAccountPage, OWN_ACCOUNT_INTENTS, type OwnAccountPage } from "./viewing-as";

// The forms only an account's own person may send (app/auth/viewing-as.ts): one list, which the
// access gate refuses while a super admin views as that person (before any action reads the form)
// and which the pages lock (e2e/impersonation.spec.ts). Here: the gate, through the real pipeline,
// and that the list holds every intent an action refuses while viewing as someone.

let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
}, 60_000);
afterAll(() => app?.close());

const REFUSAL = "You are viewing as another person";

function post(path: string, cookie: string, fields: Record<string, string>) {
  return app.fetch(path, {
    method: "POST",
    cookie,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

async function viewingAs(roles: string[]) {
  const root = await createUser({ roles: ["super_admin"] });
  const target = await createUser({ roles });
  const cookie = await sessionCookieFor(root.id);
  const started = await post(`/dashboard/users/${target.id}`, cookie, { intent: "view-as" });
  expect(started.status).toBe(302);
  return { cookie, target, root };
}

/** Every listed form, at a path of its page (another person's record for /dashboard/users/:id). */
async function listedForms(): Promise<[string, string][]> {
  const other = await createUser({ roles: ["user"] });
  const path = (page: OwnAccountPage) => page.replace(":id", other.id);
  return (Object.keys(OWN_ACCOUNT_INTENTS) as OwnAccountPage[]).flatMap((page) =>
    OWN_ACCOUNT_INTENTS[page].map((intent): [string, string] => [path(page), intent]),
  );
}

describe("forms only the person may send, while a super admin views as them", () => {
  it("each listed form is refused by the gate before its form is read: 403 with the reason, nothing to validate", async () => {
    // An admin, so every form of these pages is theirs to send in their own session.
    const { cookie } = await viewingAs(["admin"]);
    for (const [path, intent] of await listedForms()) {
      const res = await post(path, cookie, { intent });
      expect(res.status, `${path} ${intent}`).toBe(403);
      expect(await res.text(), `${path} ${intent}`).toContain(REFUSAL);
    }
  });

  // Twenty-odd actions run for real (some hash a password): a loaded machine takes its time.
  it("the same forms, sent by the person themselves, reach their actions", async () => {
    const admin = await createUser({ roles: ["admin"] });
    const cookie = await sessionCookieFor(admin.id);
    for (const [path, intent] of await listedForms()) {
      const res = await post(path, cookie, { intent });
      expect(await res.text(), `${path} ${intent}`).not.toContain(REFUSAL);
    }
  }, 60_000);

  it("what stays open while viewing as someone is not refused for it (their name, an invitation)", async () => {
    const { cookie } = await viewingAs(["admin"]);
    const name = await post("/dashboard/settings/profile", cookie, {
      intent: "profile",
      name: "Renamed While Viewed",
    });
    expect(name.status).toBe(200);
    const invite = await post("/dashboard/settings/invite", cookie, {
      intent: "invite",
      email: "not-an-address",
    });
    expect(invite.status).toBe(400);
    expect(await invite.text()).not.toContain(REFUSAL);
  });
});

describe("the list", () => {
  const root = join(import.meta.dirname, "..", "..");
  const read = (path: string) => readFileSync(join(root, path), "utf8");

  /** The text of each intent's entry in the handleIntents table of `source`, in order. */
  function entries(source: string): Map<string, string> {
    const keys = intentTableKeys(source);
    const starts: number[] = [];
    let from = source.indexOf("handleIntents(");
    for (const key of keys) {
      const at = source.slice(from).search(new RegExp(`\\n\\s+"?${key}"?: `));
      starts.push(from + at);
      from += at + 1;
    }
    return new Map(keys.map((key, i) => [key, source.slice(starts[i], starts[i + 1] ?? source.length)]));
  }
  // The two-factor entries are built in their own module; their bodies are read from there.
  const twoFactor = read("app/settings/two-factor-settings.server.ts");
  const body = (entry: string) => {
    const built = /twoFactorIntent\.(\w+)\(/.exec(entry)?.[1];
    if (!built) return entry;
    const from = twoFactor.search(new RegExp(`\\n\\s+${built}: \\(`));
    const rest = twoFactor.slice(from + 1);
    const to = rest.search(/\n\s+\w+: \(args/);
    return to === -1 ? rest : rest.slice(0, to);
  };
  // An action's own-record rule (`if (actor.id === id.data) refuseWhileImpersonating`) belongs
  // to the record page, which the route refuses whole and the page locks whole.
  const refusesWhileViewing = (entry: string) =>
    /^\s*refuseWhileImpersonating\(/m.test(
      entry.replace(/if \(actor\.id === id\.data\) refuse\w+\([^)]*\);/g, ""),
    );

  /**
   * The source holding a route's intent table: the route's own, or, where its action hands the
   * form to a domain function (Settings' pages), that function's in the module it imports it from.
   */
  function actionSource(file: string): string {
    const source = read(file);
    const delegate = /export const action = \([^)]*\) =>\s*(\w+)\(args\)/.exec(source)?.[1];
    if (!delegate) return source;
    const spec = new RegExp(`import \\{[^}]*\\b${delegate}\\b[^}]*\\} from "(\\.[\\w/.-]+)"`).exec(
      source,
    )?.[1];
    expect(spec, `${file}: where ${delegate} comes from`).toBeDefined();
    const from = join(dirname(file), `${spec}.ts`);
    const module = read(from);
    const start = module.indexOf(`export const ${delegate} =`);
    expect(start, `${from}: ${delegate}`).toBeGreaterThan(-1);
    const end = module.indexOf("\nexport ", start + 1);
    return module.slice(start, end === -1 ? undefined : end);
  }
  // Settings' pages that are not listed (webhooks, invitations) must refuse none of their forms.
  const listed = (page: string): readonly string[] =>
    isOwnAccountPage(page) ? OWN_ACCOUNT_INTENTS[page] : [];

  const PAGES = [
    ["/dashboard/settings/profile", "app/routes/dashboard.settings.profile/route.tsx"],
    ["/dashboard/settings/security", "app/routes/dashboard.settings.security/route.tsx"],
    ["/dashboard/settings/api-tokens", "app/routes/dashboard.settings.api-tokens/route.tsx"],
    ["/dashboard/settings/system", "app/routes/dashboard.settings.system/route.tsx"],
    ["/dashboard/settings/webhooks", "app/routes/dashboard.settings.webhooks/route.tsx"],
    ["/dashboard/settings/invite", "app/routes/dashboard.settings.invite/route.tsx"],
    ["/dashboard/users/import", "app/routes/dashboard.users.import/route.tsx"],
    ["/dashboard/users/:id", "app/routes/dashboard.users.$id/route.tsx"],
  ] as const;

  it.each(PAGES)("%s: exactly the intents its actions refuse while viewing as someone", (page, file) => {
    const table = entries(actionSource(file));
    expect(table.size, file).toBeGreaterThan(0);
    const refused = [...table].filter(([, entry]) => refusesWhileViewing(body(entry))).map(([key]) => key);
    expect([...listed(page)].sort()).toEqual(refused.sort());
  });

  it("every page of the list is one checked above", () => {
    const checked: string[] = PAGES.map(([page]) => page);
    expect(Object.keys(OWN_ACCOUNT_INTENTS).filter((page) => !checked.includes(page))).toEqual([]);
  });
});
