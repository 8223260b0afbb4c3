import { z } from "zod";
import { db } from "../db.server";

export const audienceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("all") }),
  z.object({
    kind: z.literal("roles"),
    ids: z.array(z.string().uuid()).min(1, "Choose at least one role.").max(50),
  }),
  z.object({
    kind: z.literal("teams"),
    ids: z.array(z.string().uuid()).min(1, "Choose at least one team.").max(50),
  }),
]);

export type Audience = z.infer<typeof audienceSchema>;

/** Ids, names and emails of the active users a broadcast reaches, each once. */
export async function resolveAudience(audience: Audience) {
  let q = db()
    .selectFrom("user")
    .select(["user.id", "user.name", "user.email"])
    .where("user.status", "=", "active");
  if (audience.kind === "roles") {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom("user_role")
          .select("user_id")
          .whereRef("user_role.user_id", "=", "user.id")
          .where("role_id", "in", audience.ids),
      ),
    );
  }
  if (audience.kind === "teams") {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom("team_member")
          .select("user_id")
          .whereRef("team_member.user_id", "=", "user.id")
          .where("team_id", "in", audience.ids),
      ),
    );
  }
  return q.orderBy("user.id").execute();
}

export async function describeAudience(audience: Audience): Promise<string> {
  if (audience.kind === "all") return "Everyone";
  const table = audience.kind === "roles" ? "role" : "team";
  const rows =
    table === "role"
      ? await db().selectFrom("role").select("label as name").where("id", "in", audience.ids).execute()
      : await db().selectFrom("team").select("name").where("id", "in", audience.ids).execute();
  return `${audience.kind === "roles" ? "Roles" : "Teams"}: ${rows.map((r) => r.name).join(", ")}`;
}
