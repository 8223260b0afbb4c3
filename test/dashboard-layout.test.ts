import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { loader } from "../app/routes/dashboard";
import { clearSystemConfigCache, setSystemConfig } from "../app/system-settings/system-config.server";
import { args, request, run, setupDatabase, signedIn } from "./helpers";

beforeAll(setupDatabase);

describe("dashboard layout", () => {
  // Sending the account to the settings page is the access gate's job (app/auth/guard.test.ts).
  it("tells the page about a temporary password, for the banner; the header's live widgets stay off", async () => {
    const user = await signedIn(["user"]);
    await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", user.id).execute();
    const settings = await run(() =>
      loader(args(request("/dashboard/settings/security", { cookie: user.cookie }))),
    );
    expect(settings).toMatchObject({ status: 200, body: { mustChangePassword: true, held: true } });
  });

  it("carries the unread notification count", async () => {
    const user = await signedIn(["user"]);
    const out = await run(() => loader(args(request("/dashboard", { cookie: user.cookie }))));
    expect(out.body).toEqual({ unread: 0, mailOff: false, mustChangePassword: false, held: false });
  });

  it("says mail is off to those who send it or set it up, until a provider key is stored", async () => {
    const of = async (roles: string[]) => {
      const user = await signedIn(roles);
      return (await run(() => loader(args(request("/dashboard", { cookie: user.cookie }))))).body;
    };
    expect(await of(["admin"])).toMatchObject({ mailOff: true });
    expect(await of(["super_admin"])).toMatchObject({ mailOff: true });
    expect(await of(["user"])).toMatchObject({ mailOff: false });
    await setSystemConfig("MAIL_API_KEY", "a-provider-server-token", null);
    await clearSystemConfigCache();
    expect(await of(["admin"])).toMatchObject({ mailOff: false });
  });
});
