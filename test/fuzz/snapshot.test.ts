import { beforeAll, expect, it } from "vitest";
import { db, now } from "../../app/db.server";
import { createDb } from "../../db/connection";
import { sessionCookieFor, setupDatabase, signedIn } from "../helpers";
import { changed, snapshot } from "./snapshot";

// The fuzz test's "nothing changed" (test/fuzz/snapshot.ts): a digest sees any changed value in the
// columns it covers, and nothing else.

beforeAll(setupDatabase);

it("sees a changed, added or removed row, in any covered column", async () => {
  const user = await signedIn(["user"]);
  const before = await snapshot();
  expect(changed(before, await snapshot())).toEqual([]);
  await db().updateTable("user").set({ name: "Someone Else" }).where("id", "=", user.id).execute();
  expect(changed(before, await snapshot())).toEqual(["user"]);
  const renamed = await snapshot();
  await sessionCookieFor(user.id);
  expect(changed(renamed, await snapshot())).toEqual(["session"]);
  const withSession = await snapshot();
  await db().deleteFrom("user_role").where("user_id", "=", user.id).execute();
  expect(changed(withSession, await snapshot())).toEqual(["user_role"]);
});

it("leaves out what a refusal may write: a session sliding, the audit log, one route's own tables", async () => {
  const user = await signedIn(["user"]);
  const before = await snapshot(["team"]);
  await db().updateTable("session").set({ last_seen_at: now() }).where("user_id", "=", user.id).execute();
  await db()
    .insertInto("team")
    .values({ id: "t-snap", name: "Snap", description: "", created_at: now(), updated_at: now() })
    .execute();
  expect(changed(before, await snapshot(["team"]))).toEqual([]);
  expect(Object.keys(before)).not.toContain("audit_log");
});

it("sees a write made while a table was left out, or on another connection", async () => {
  const first = await snapshot();
  await snapshot(["team"]);
  await db()
    .insertInto("team")
    .values({ id: "t-later", name: "Later", description: "", created_at: now(), updated_at: now() })
    .execute();
  expect(changed(first, await snapshot())).toEqual(["team"]);
  const before = await snapshot();
  const other = createDb(process.env.DATABASE_URL!);
  try {
    await other.updateTable("team").set({ name: "Renamed" }).where("id", "=", "t-later").execute();
  } finally {
    await other.destroy();
  }
  expect(changed(before, await snapshot())).toEqual(["team"]);
  const renamed = await snapshot();
  await db().updateTable("team").set({ name: "Renamed" }).where("id", "=", "t-later").execute();
  expect(changed(renamed, await snapshot())).toEqual([]);
});
