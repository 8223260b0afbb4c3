import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { loader } from "../app/routes/dashboard";
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
    expect(out.body).toEqual({ unread: 0, mustChangePassword: false, held: false });
  });
});
