import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
import { loader } from "./dashboard";

beforeAll(setupDatabase);

describe("dashboard layout", () => {
  it("sends a user with a temporary password to the settings page first", async () => {
    const user = await signedIn(["user"]);
    await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", user.id).execute();
    const out = await run(() => loader(args(request("/dashboard/users", { cookie: user.cookie }))));
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard/settings?mustChange=1");
    const settings = await run(() => loader(args(request("/dashboard/settings", { cookie: user.cookie }))));
    expect(settings).toMatchObject({ status: 200, body: { mustChangePassword: true } });
  });

  it("carries the unread notification count", async () => {
    const user = await signedIn(["user"]);
    const out = await run(() => loader(args(request("/dashboard", { cookie: user.cookie }))));
    expect(out.body).toEqual({ unread: 0, mustChangePassword: false });
  });
});
