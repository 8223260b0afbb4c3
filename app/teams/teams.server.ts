import { randomUUID } from "node:crypto";
import { type ExpressionBuilder, sql } from "kysely";
import type { z } from "zod";
import { TEAM_MEMBERS } from "../../db/counted-tables";
import { cursorValue, flip, keysetPage, type Order, type PageRequest, rowsAfter } from "../../db/keyset";
import { searchText } from "../../db/like";
import { hasNoNul } from "../../db/nul";
import type { Database } from "../../db/schema";
import { type AccessSubject, can } from "../access/check";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import type { TeamRole } from "./team-roles";
import {
  type addMembersSchema,
  MEMBER_SEARCH_LIMIT,
  type MemberCandidate,
  type memberSchema,
  type TeamInput,
} from "./team-schemas";

const TEAM_PAGE = 50;
const TEAMS_BY_NAME: Order = {
  column: "team.name",
  output: "name",
  id: "team.id",
  idOutput: "id",
  dir: "asc",
  nullable: false,
};

/** Maintained by triggers (decision 016): absent (0) for a team without members. */
function membersOf(eb: ExpressionBuilder<Database, "team">) {
  return eb.fn
    .coalesce(
      eb
        .selectFrom("stat_count")
        .select("stat_count.n")
        .whereRef("stat_count.scope", "=", "team.id")
        .where("stat_count.day", "=", "")
        .where("stat_count.name", "=", TEAM_MEMBERS),
      sql.lit(0),
    )
    .as("members");
}

type TeamRow = { id: string; name: string; description: string; members: number };

/** A page reads its 50 teams and 50 counters, whatever the number of teams or people (decision 012). */
/** `teams`: the reader's reach (a grant within teams), null for every team. */
export async function listTeams(request: PageRequest = {}, teams: string[] | null = null) {
  const all = db().selectFrom("team");
  const shown = teams ? all.where("team.id", "in", teams.length ? teams : [""]) : all;
  const [page, total] = await Promise.all([
    keysetPage<TeamRow>(request, {
      key: "name.asc",
      size: TEAM_PAGE,
      value: cursorValue.text,
      nullable: false,
      positionOf: (t) => ({ value: t.name, id: t.id }),
      fetch: (after, reverse, limit) =>
        rowsAfter(
          db(),
          [
            {
              query: shown.select(["team.id", "team.name", "team.description", membersOf]),
            },
          ],
          reverse ? { ...TEAMS_BY_NAME, dir: flip(TEAMS_BY_NAME.dir) } : TEAMS_BY_NAME,
          after,
          limit,
        ),
    }),
    teams ? Promise.resolve(teams.length) : systemTotal("teams.total"),
  ]);
  const { rows, ...links } = page;
  return { teams: rows.map((t) => ({ ...t, members: Number(t.members) })), page: links, total };
}

async function systemTotal(name: string): Promise<number> {
  const row = await db()
    .selectFrom("stat_count")
    .select("n")
    .where("scope", "=", "")
    .where("day", "=", "")
    .where("name", "=", name)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

const MEMBER_PAGE = 50;
type TeamMember = { id: string; name: string; email: string; team_role: "lead" | "member" };
// A page is one range of team_member_team_name_idx, whatever the team's size.
const BY_NAME: Order = {
  column: "team_member.member_name",
  output: "name",
  id: "team_member.user_id",
  idOutput: "id",
  dir: "asc",
  nullable: false,
};

export async function teamExists(id: string): Promise<boolean> {
  return Boolean(await db().selectFrom("team").select("id").where("id", "=", id).executeTakeFirst());
}

/** Keyset-paged: a team may hold everyone. `find` keeps the members whose name or email holds it. */
export async function getTeam(id: string, request: PageRequest & { find?: string } = {}) {
  const team = await db()
    .selectFrom("team")
    .selectAll("team")
    .select(membersOf)
    .where("team.id", "=", id)
    .executeTakeFirst();
  if (!team) return null;
  const { members: count, ...fields } = team;
  let inTeam = db()
    .selectFrom("team_member")
    .innerJoin("user", "user.id", "team_member.user_id")
    .where("team_member.team_id", "=", id);
  const find = request.find?.trim();
  if (find && hasNoNul(find)) inTeam = inTeam.where(searchText(db(), "user", ["name", "email"], find));
  const page = await keysetPage<TeamMember>(request, {
    key: "name.asc",
    size: MEMBER_PAGE,
    value: cursorValue.text,
    nullable: false,
    positionOf: (m) => ({ value: m.name, id: m.id }),
    fetch: (after, reverse, limit) =>
      rowsAfter(
        db(),
        [
          {
            query: inTeam.select([
              "team_member.user_id as id",
              "team_member.member_name as name",
              "user.email",
              "team_member.team_role",
            ]),
          },
        ],
        reverse ? { ...BY_NAME, dir: flip(BY_NAME.dir) } : BY_NAME,
        after,
        limit,
      ),
  });
  const { rows: members, ...links } = page;
  return { ...fields, members, memberCount: Number(count), membersPage: links };
}

async function nameTaken(name: string, exceptId?: string) {
  let q = db().selectFrom("team").select("id").where("name", "=", name);
  if (exceptId) q = q.where("id", "!=", exceptId);
  return Boolean(await q.executeTakeFirst());
}

export async function createTeam(actor: SessionUser, input: TeamInput, origin: AuditOrigin) {
  if (await nameTaken(input.name)) throw new RuleViolation("teams.nameTaken", { name: input.name });
  const id = randomUUID();
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("team")
        .values({ id, ...input, created_at: ts, updated_at: ts })
        .execute();
      await audit(
        origin,
        { action: "team.create", actor, target: { type: "team", id }, details: { after: input } },
        trx,
      );
    });
  return id;
}

async function existingTeam(id: string) {
  const team = await db().selectFrom("team").selectAll().where("id", "=", id).executeTakeFirst();
  if (!team) throw new NotFound("teams.notFound");
  return team;
}

export async function updateTeam(actor: SessionUser, input: { id: string } & TeamInput, origin: AuditOrigin) {
  const { id, ...fields } = input;
  const before = await existingTeam(id);
  if (await nameTaken(fields.name, id)) throw new RuleViolation("teams.nameTaken", { name: fields.name });
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("team")
        .set({ ...fields, updated_at: now() })
        .where("id", "=", id)
        .execute();
      await audit(
        origin,
        {
          action: "team.update",
          actor,
          target: { type: "team", id },
          details: { before: { name: before.name, description: before.description }, after: fields },
        },
        trx,
      );
    });
}

export async function deleteTeam(actor: SessionUser, input: { id: string }, origin: AuditOrigin) {
  const before = await existingTeam(input.id);
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx.deleteFrom("team").where("id", "=", input.id).execute();
      await audit(
        origin,
        {
          action: "team.delete",
          actor,
          target: { type: "team", id: input.id },
          details: { before: { name: before.name } },
        },
        trx,
      );
    });
}

export async function setMember(
  actor: SessionUser,
  input: { teamId: string } & z.infer<typeof memberSchema>,
  origin: AuditOrigin,
) {
  const { teamId, userId, teamRole } = input;
  await existingTeam(teamId);
  const user = await db().selectFrom("user").select("id").where("id", "=", userId).executeTakeFirst();
  if (!user) throw new RuleViolation("teams.userNotFound");
  await db()
    .transaction()
    .execute(async (trx) => {
      const existing = await trx
        .selectFrom("team_member")
        .select("team_role")
        .where("team_id", "=", teamId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (existing) {
        await trx
          .updateTable("team_member")
          .set({ team_role: teamRole })
          .where("team_id", "=", teamId)
          .where("user_id", "=", userId)
          .execute();
      } else {
        await trx
          .insertInto("team_member")
          .values({ team_id: teamId, user_id: userId, team_role: teamRole, created_at: now() })
          .execute();
      }
      await audit(
        origin,
        {
          action: existing ? "team.member.update" : "team.member.add",
          actor,
          target: { type: "team", id: teamId },
          details: {
            user: userId,
            before: existing ? { team_role: existing.team_role } : undefined,
            after: { team_role: teamRole },
          },
        },
        trx,
      );
    });
}

/**
 * Several people at once, in one transaction, one audit row each. Members already in the team keep
 * their role (it is changed on their row); an id that names no one refuses the whole request.
 */
export async function addMembers(
  actor: SessionUser,
  input: { teamId: string } & z.infer<typeof addMembersSchema>,
  origin: AuditOrigin,
): Promise<{ added: string[]; already: string[] }> {
  const { teamId, teamRole } = input;
  const ids = [...new Set(input.userIds)];
  // Names come back in the toast: the same user.read the picker's search needs.
  if (!mayFindMembers(actor)) throw new RuleViolation("teams.userNotFound");
  await existingTeam(teamId);
  const people = await db()
    .selectFrom("user")
    .select(["id", "name"])
    .where("id", "in", ids)
    .where("status", "=", "active")
    .execute();
  if (people.length !== ids.length) throw new RuleViolation("teams.userNotFound");
  const nameOf = new Map(people.map((p) => [p.id, p.name]));
  return db()
    .transaction()
    .execute(async (trx) => {
      const added: string[] = [];
      const already: string[] = [];
      for (const userId of ids) {
        const inserted = await trx
          .insertInto("team_member")
          .values({ team_id: teamId, user_id: userId, team_role: teamRole, created_at: now() })
          .onConflict((oc) => oc.columns(["team_id", "user_id"]).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
          already.push(nameOf.get(userId)!);
          continue;
        }
        added.push(nameOf.get(userId)!);
        await audit(
          origin,
          {
            action: "team.member.add",
            actor,
            target: { type: "team", id: teamId },
            details: { user: userId, after: { team_role: teamRole } },
          },
          trx,
        );
      }
      return { added, already };
    });
}

const TEAM_CHOICES = 500;

export async function teamChoices(): Promise<{ id: string; label: string }[]> {
  const rows = await db()
    .selectFrom("team")
    .select(["id", "name"])
    .orderBy("name")
    .limit(TEAM_CHOICES)
    .execute();
  return rows.map((r) => ({ id: r.id, label: r.name }));
}

/** An existing lead stays a lead; false when nothing changed. */
export async function joinTeam(
  actor: AuditedActor,
  input: { teamId: string; userId: string },
  origin: AuditOrigin,
) {
  const { teamId, userId } = input;
  return db()
    .transaction()
    .execute(async (trx) => {
      const added = await trx
        .insertInto("team_member")
        .values({ team_id: teamId, user_id: userId, team_role: "member", created_at: now() })
        .onConflict((oc) => oc.columns(["team_id", "user_id"]).doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await audit(
        origin,
        {
          action: "team.member.add",
          actor,
          target: { type: "team", id: teamId },
          details: { user: userId, after: { team_role: "member" } },
        },
        trx,
      );
      return true;
    });
}

/** Answers the team role they had (what an Undo gives back). */
export async function removeMember(
  actor: SessionUser,
  input: { teamId: string; userId: string },
  origin: AuditOrigin,
): Promise<TeamRole> {
  const { teamId, userId } = input;
  return db()
    .transaction()
    .execute(async (trx) => {
      const had = await trx
        .selectFrom("team_member")
        .select("team_role")
        .where("team_id", "=", teamId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      const res = await trx
        .deleteFrom("team_member")
        .where("team_id", "=", teamId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (!had || Number(res.numDeletedRows) === 0) throw new NotFound("teams.notMember");
      await audit(
        origin,
        {
          action: "team.member.remove",
          actor,
          target: { type: "team", id: teamId },
          details: { user: userId, before: { team_role: had.team_role } },
        },
        trx,
      );
      return had.team_role;
    });
}

/** False, with nothing written, when the team or the person is gone or they belong again. */
export async function rejoinTeam(
  actor: AuditedActor,
  input: { teamId: string; userId: string; teamRole: TeamRole },
  origin: AuditOrigin,
): Promise<boolean> {
  const { teamId, userId, teamRole } = input;
  const [team, user] = await Promise.all([
    db().selectFrom("team").select("id").where("id", "=", teamId).executeTakeFirst(),
    db().selectFrom("user").select("id").where("id", "=", userId).executeTakeFirst(),
  ]);
  if (!team || !user) return false;
  return db()
    .transaction()
    .execute(async (trx) => {
      const added = await trx
        .insertInto("team_member")
        .values({ team_id: teamId, user_id: userId, team_role: teamRole, created_at: now() })
        .onConflict((oc) => oc.columns(["team_id", "user_id"]).doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await audit(
        origin,
        {
          action: "team.member.remove.undone",
          actor,
          target: { type: "team", id: teamId },
          details: { user: userId, after: { team_role: teamRole } },
        },
        trx,
      );
      return true;
    });
}

/** Names and emails are user.read material: managing teams alone must not enumerate them. */
export async function searchUsers(
  actor: AccessSubject,
  q: string,
  options: { excludeTeam?: string; limit?: number } = {},
): Promise<MemberCandidate[]> {
  // PostgreSQL cannot compare NUL, and no account holds it.
  if (!mayFindMembers(actor) || !q.trim() || !hasNoNul(q)) return [];
  const text = q.trim();
  const limit = Math.min(options.limit ?? MEMBER_SEARCH_LIMIT, MEMBER_SEARCH_LIMIT);
  let query = db()
    .selectFrom("user")
    .select(["user.id", "user.name", "user.email"])
    .where("user.status", "=", "active")
    .where(searchText(db(), "user", ["name", "email"], text));
  const team = options.excludeTeam;
  if (team)
    query = query.where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("team_member")
            .select("team_member.user_id")
            .whereRef("team_member.user_id", "=", "user.id")
            .where("team_member.team_id", "=", team),
        ),
      ),
    );
  return query.orderBy("user.name").orderBy("user.email").limit(limit).execute();
}

export function mayFindMembers(actor: AccessSubject): boolean {
  return can(actor, "team.write") && can(actor, "user.read");
}

/** `teams`: the reader's reach, null for every team. */
export async function findTeams(text: string, teams: string[] | null = null) {
  if (!text.trim() || !hasNoNul(text) || teams?.length === 0) return [];
  let query = db()
    .selectFrom("team")
    .select(["team.id", "team.name"])
    .where(searchText(db(), "team", ["name"], text.trim()));
  if (teams) query = query.where("team.id", "in", teams);
  return query.orderBy("team.name").orderBy("team.id").limit(6).execute();
}
