import { randomUUID } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { db, now } from "../db.server";
import { MENU_VERSION_KEY } from "./menu";
import { MENU_VERSION_CHECK_MS, menuItems } from "./menu.server";

// The seed, run as its own process, adds menu rows the running server has no message about: it
// bumps the menu version, which the server reads at most every MENU_VERSION_CHECK_MS.

beforeAll(setupDatabase);
afterEach(() => {
  vi.useRealTimers();
});

async function addRowAsTheSeedWould(url: string) {
  const ts = now();
  await db()
    .insertInto("menu_item")
    .values({
      id: randomUUID(),
      title: "Added elsewhere",
      url,
      icon: "Users",
      required_permission: "dashboard.access",
      position: 99,
      created_at: ts,
      updated_at: ts,
    })
    .execute();
  const version = { value: `${ts} ${randomUUID()}`, is_secret: 0, updated_at: ts, updated_by: null };
  await db()
    .insertInto("system_setting")
    .values({ key: MENU_VERSION_KEY, ...version })
    .onConflict((oc) => oc.column("key").doUpdateSet(version))
    .execute();
}

describe("menu rows added by another process", () => {
  it("show once the version is read again, without a query per request before that", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const urls = async () => (await menuItems()).map((m) => m.url);
    await urls();
    await addRowAsTheSeedWould("/dashboard/elsewhere");
    const spy = vi.spyOn(db(), "selectFrom");
    expect(await urls()).not.toContain("/dashboard/elsewhere");
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    vi.setSystemTime(Date.now() + MENU_VERSION_CHECK_MS);
    expect(await urls()).toContain("/dashboard/elsewhere");
  });
});
