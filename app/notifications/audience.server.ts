import type { ExpressionBuilder } from "kysely";
import type { Database } from "../../db/schema";
import { liveGlobal } from "../access/grant-rows.server";
import { db } from "../db.server";
import type { Audience } from "./broadcast-schema";

/**
 * The users a broadcast to this audience reaches (a query to select from): enabled accounts with a
 * verified address only. An unconfirmed self-registration may use anyone's address, and a disabled
 * account has left; neither gets notices, live events or email (docs/rules.md, Broadcast).
 */
function audienceQuery(audience: Audience) {
  return membersQuery(audience).where(reachable);
}

/** Everyone the audience names, reachable or not. */
function membersQuery(audience: Audience) {
  let q = db().selectFrom("user");
  if (audience.kind === "roles") {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom("user_role")
          .select("user_id")
          .whereRef("user_role.user_id", "=", "user.id")
          .where("role_id", "in", audience.ids)
          .where(liveGlobal),
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
  return q;
}

/** The accounts a broadcast may reach, as a `where` over `user`; the email task re-checks with it at sending time. */
export function reachable(eb: ExpressionBuilder<Database, "user">) {
  return eb.and([eb("user.status", "=", "active"), eb("user.email_verified", "=", 1)]);
}

/** Ids, names and emails of the active users a broadcast reaches, each once. */
export async function resolveAudience(audience: Audience) {
  return audienceQuery(audience).select(["user.id", "user.name", "user.email"]).orderBy("user.id").execute();
}

export type AudienceCount = { reached: number; members: number; unverified: number; disabled: number };

/**
 * How many people a broadcast to this audience would reach now, of how many it names and why the
 * others are left out (what the composer asks before sending: "494 of 693 (199 unverified)").
 */
export async function countAudience(audience: Audience): Promise<AudienceCount> {
  const row = await membersQuery(audience)
    .select((eb) => [
      eb.fn.countAll<number>().as("members"),
      eb.fn.sum<number>(eb.case().when(reachable(eb)).then(1).else(0).end()).as("reached"),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(eb.and([eb("user.status", "=", "active"), eb("user.email_verified", "!=", 1)]))
            .then(1)
            .else(0)
            .end(),
        )
        .as("unverified"),
    ])
    .executeTakeFirstOrThrow();
  const members = Number(row.members);
  const reached = Number(row.reached ?? 0);
  const unverified = Number(row.unverified ?? 0);
  return { reached, members, unverified, disabled: members - reached - unverified };
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
