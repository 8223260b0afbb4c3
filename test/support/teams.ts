import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";

/** A team with these members (tests only: the product goes through app/teams). */
export async function createTeam(db: Kysely<Database>, name: string, memberIds: string[] = []) {
  const id = randomUUID();
  const ts = new Date().toISOString();
  await db.insertInto("team").values({ id, name, description: "", created_at: ts, updated_at: ts }).execute();
  if (memberIds.length)
    await db
      .insertInto("team_member")
      .values(
        memberIds.map((user_id) => ({ team_id: id, user_id, team_role: "member" as const, created_at: ts })),
      )
      .execute();
  return id;
}

/** A grant straight into user_role: `team` null for one over everyone. */
export async function grant(
  db: Kysely<Database>,
  userId: string,
  roleName: string,
  team: string | null,
  expiresAt: string | null = null,
) {
  const role = await db
    .selectFrom("role")
    .select("id")
    .where("name", "=", roleName)
    .executeTakeFirstOrThrow();
  await db
    .insertInto("user_role")
    .values({ user_id: userId, role_id: role.id, team_id: team, expires_at: expiresAt })
    .execute();
}
