import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { invalidateSessions } from "../auth/session.server";
import { db } from "../db.server";
import { readToast } from "../http/toast.server";
import { action as teamsAction } from "../routes/dashboard.teams";
import { action as listAction } from "../routes/dashboard.users/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";
import { i18nMiddleware } from "../server/root-middleware.server";

// Toasts written by the users and teams actions are said at source in the request's language:
// the person's own setting, else the browser's Accept-Language, else English.

beforeAll(setupDatabase);

async function runIn(
  action: (a: never) => unknown,
  path: string,
  values: Record<string, string | string[]>,
  opts: { cookie: string; headers?: Record<string, string>; params?: Record<string, string> },
) {
  const a = args(formRequest(path, values, { cookie: opts.cookie, headers: opts.headers }), opts.params);
  const { request, context } = a as unknown as Parameters<typeof i18nMiddleware>[0];
  await i18nMiddleware({ request, context } as never, async () => new Response());
  return run(() => action(a));
}

async function toastOf(out: { headers: Headers }) {
  const cookie = out.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  return (await readToast(new Request("http://localhost/", { headers: { Cookie: cookie } }))).toast;
}

describe("toasts of the users and teams pages", () => {
  it("follow Accept-Language: a bulk refusal in German, the domain's English reason translated", async () => {
    const admin = await signedIn(["admin"]);
    const other = await createUser({ roles: ["user"] });
    const out = await runIn(
      listAction as never,
      "/dashboard/users",
      { intent: "bulk-disable", ids: [other.id, admin.id] },
      { cookie: admin.cookie, headers: { "Accept-Language": "de-DE,de;q=0.9" } },
    );
    expect(out.status).toBe(302);
    expect(await toastOf(out)).toEqual({
      undo: expect.any(String), // the one disabled can be enabled again from the toast
      kind: "error",
      message: "1 Benutzer deaktiviert. 1 abgelehnt: Sie können Ihr eigenes Konto nicht deaktivieren.",
    });
  });

  it("stay English for an English browser", async () => {
    const admin = await signedIn(["admin"]);
    const other = await createUser({ roles: ["user"] });
    const out = await runIn(
      listAction as never,
      "/dashboard/users",
      { intent: "bulk-disable", ids: [other.id] },
      { cookie: admin.cookie, headers: { "Accept-Language": "en-US" } },
    );
    expect(await toastOf(out)).toEqual({
      kind: "success",
      message: "Disabled 1 user.",
      undo: expect.any(String),
    });
  });

  it("follow the person's own setting over the browser's", async () => {
    const admin = await signedIn(["admin"]);
    await db().updateTable("user").set({ locale: "de" }).where("id", "=", admin.id).execute();
    await invalidateSessions();
    const target = await createUser({ roles: ["user"] });
    const out = await runIn(
      userAction as never,
      `/dashboard/users/${target.id}`,
      { intent: "disable" },
      { cookie: admin.cookie, headers: { "Accept-Language": "en-US" }, params: { id: target.id } },
    );
    expect(await toastOf(out)).toEqual({
      kind: "success",
      message: "Benutzer deaktiviert und abgemeldet.",
      undo: expect.any(String),
    });

    const team = await runIn(
      teamsAction as never,
      "/dashboard/teams",
      { intent: "create", name: "Vertrieb", description: "" },
      { cookie: admin.cookie },
    );
    expect(await toastOf(team)).toEqual({ kind: "success", message: "Team „Vertrieb“ angelegt." });
  });
});
