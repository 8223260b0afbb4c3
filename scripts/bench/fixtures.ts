import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { createCookie } from "react-router";
import type { Database } from "../../db/schema";

/** Users with a live session each, written straight to the database; returns their Cookie headers. */
export async function usersWithSessions(db: Kysely<Database>, count: number, secret: string, prefix: string) {
  const cookie = createCookie("__session", { secrets: [secret], path: "/" });
  const role = await db.selectFrom("role").select("id").where("name", "=", "user").executeTakeFirstOrThrow();
  const ts = new Date().toISOString();
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const out: { id: string; cookie: string }[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    await db
      .insertInto("user")
      .values({
        id,
        name: `${prefix} ${i}`,
        email: `${prefix}-${i}-${id.slice(0, 6)}@bench.test`,
        email_verified: 1,
        password_hash: null,
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    await db.insertInto("user_role").values({ user_id: id, role_id: role.id }).execute();
    out.push({ id, cookie: await sessionFor(db, id, cookie, ts, expires) });
  }
  return out;
}

export async function sessionFor(
  db: Kysely<Database>,
  userId: string,
  cookie: ReturnType<typeof createCookie>,
  ts = new Date().toISOString(),
  expires = new Date(Date.now() + 86_400_000).toISOString(),
) {
  const sessionId = randomUUID();
  await db
    .insertInto("session")
    .values({
      id: sessionId,
      user_id: userId,
      data: "{}",
      ip: null,
      user_agent: "bench",
      created_at: ts,
      last_seen_at: ts,
      expires_at: expires,
    })
    .execute();
  return (await cookie.serialize(sessionId)).split(";")[0]!;
}
