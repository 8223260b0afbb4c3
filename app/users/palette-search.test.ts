import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db, now } from "../db.server";
import { loader as search } from "../routes/api.search";

// GET /api/search, the command palette's people and teams: each only for someone who may read them.

beforeAll(setupDatabase);

const find = (q: string, cookie?: string) =>
  run(() => search(args(request(`/api/search?q=${encodeURIComponent(q)}`, { cookie }))));

describe("the command palette's search", () => {
  it("finds people by part of a name or email, and teams by name, for those who may read them", async () => {
    const tag = `pal${randomUUID().slice(0, 6)}`;
    const person = await createUser({ name: `Renée ${tag}`, email: `${tag}.renee@example.test` });
    await db()
      .insertInto("team")
      .values({
        id: randomUUID(),
        name: `Team ${tag}`,
        description: "",
        created_at: now(),
        updated_at: now(),
      })
      .execute();
    const admin = await signedIn(["admin"]);
    const out = await find(tag, admin.cookie);
    expect(out.status).toBe(200);
    const body = out.body as { users: { id: string; email: string }[]; teams: { name: string }[] };
    expect(body.users.map((u) => u.id)).toEqual([person.id]);
    expect(body.teams.map((t) => t.name)).toEqual([`Team ${tag}`]);
    expect(((await find(`${tag}.ren`, admin.cookie)).body as typeof body).users).toHaveLength(1);
  });

  it("tells a plain user nothing about people or teams, and a stranger nothing at all", async () => {
    const tag = `hid${randomUUID().slice(0, 6)}`;
    await createUser({ name: `Hidden ${tag}`, email: `${tag}@example.test` });
    const plain = await signedIn(["user"]);
    const out = await find(tag, plain.cookie);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ q: tag, users: [], teams: [] });
    expect((await find(tag)).status).toBe(401);
  });

  it("answers an empty, long or NUL-bearing query with nothing found", async () => {
    const admin = await signedIn(["admin"]);
    for (const q of ["", "   ", "a\u0000b"])
      expect((await find(q, admin.cookie)).body).toMatchObject({ users: [], teams: [] });
    expect((await find("x".repeat(500), admin.cookie)).body).toEqual({ q: "", users: [], teams: [] });
  });
});
