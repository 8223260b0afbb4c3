import { type ExpressionBuilder, sql } from "kysely";
import { z } from "zod";
import { cursorValue, flip, keysetPage, type Order, type Position, rowsAfter } from "../../db/keyset";
import { containsText, inIds, type SearchColumn, searchText } from "../../db/like";
import { hasNoNul, NUL_MESSAGE } from "../../db/nul";
import type { Database } from "../../db/schema";
import { db } from "../db.server";
import type { Issue } from "../i18n/message";
import { AUDIT_PERIODS, PERIOD_NAMES } from "./periods";

/** "2026-02-30" is refused, not guessed at. */
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "audit.dateFormat")
  .refine((v) => {
    const ms = Date.parse(`${v}T00:00:00.000Z`);
    return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(v);
  }, "audit.noSuchDate");

const dateFilter = isoDate.or(z.literal("")).default("");

// Shared by the page (URL) and the CSV export (task payload). A wrong date or NUL is refused, as a
// dropped filter would show rows the reader did not ask for.
const textFilter = (max: number) =>
  z.string().default("").refine(hasNoNul, NUL_MESSAGE).pipe(z.string().trim().max(max).catch(""));

export const auditFilters = z.object({
  /** A user's id: what they did, what was done to them, and what they did while viewing as another. */
  person: z.string().uuid("audit.noSuchPerson").or(z.literal("")).default(""),
  actor: textFilter(254),
  action: textFilter(100),
  target: textFilter(100),
  from: dateFilter,
  to: dateFilter,
  within: z.enum(PERIOD_NAMES, "audit.noSuchPeriod").or(z.literal("")).default(""),
});

type AuditFilters = z.infer<typeof auditFilters>;

export const auditQuery = auditFilters.extend({
  // A bad cursor, like an old `?page=N`, opens the newest page.
  after: z.string().max(2000).optional().catch(undefined),
  before: z.string().max(2000).optional().catch(undefined),
  size: z.coerce.number().int().min(10).max(200).catch(50),
});

export type AuditQuery = z.infer<typeof auditQuery>;

export function parseAuditQuery(
  params: URLSearchParams,
): { ok: true; value: AuditQuery } | { ok: false; field: string; issue: Issue } {
  const parsed = auditQuery.safeParse(Object.fromEntries(params));
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, field: String(issue.path[0]), issue };
}

/** Past this many actor hits the chosen action's range is walked instead (decision 023). */
export const ACTOR_HITS_WITH_ACTION = 200;

const EXACT_TARGET = /^([a-z_]+):(.+)$/;

/** Shared by the page and the CSV export so both show the same rows. */
export function filteredAudit(q: AuditFilters) {
  const query = unpersonal(q);
  const person = q.person;
  if (!person) return query;
  return query.where((eb) =>
    eb.or([
      eb("audit_log.actor_id", "=", person),
      eb.and([eb("audit_log.target_type", "=", "user"), eb("audit_log.target_id", "=", person)]),
      eb("audit_log.impersonator_id", "=", person),
    ]),
  );
}

/**
 * A person's rows as three disjoint index ranges (actor, target, impersonator), merged newest first:
 * one OR over three columns would walk the whole log by time on both engines.
 */
function auditSegments(q: AuditFilters, teams: string[] | null) {
  const person = q.person;
  if (!person) return [withinTeams(filteredAudit(q), teams)];
  const base = withinTeams(unpersonal(q), teams);
  const notActor = (eb: ExpressionBuilder<Database, "audit_log">) =>
    eb.or([eb("audit_log.actor_id", "is", null), eb("audit_log.actor_id", "<>", person)]);
  const notTarget = (eb: ExpressionBuilder<Database, "audit_log">) =>
    eb.or([
      eb(eb.fn.coalesce("audit_log.target_type", sql.lit("")), "<>", "user"),
      eb(eb.fn.coalesce("audit_log.target_id", sql.lit("")), "<>", person),
    ]);
  return [
    base.where("audit_log.actor_id", "=", person),
    base
      .where("audit_log.target_type", "=", "user")
      .where("audit_log.target_id", "=", person)
      .where(notActor),
    base.where("audit_log.impersonator_id", "=", person).where(notActor).where(notTarget),
  ];
}

/**
 * A reader whose log.read is held within teams reads the rows about those teams and their members,
 * and what those members did (decision 044); null reads every row.
 */
function withinTeams(query: ReturnType<typeof unpersonal>, teams: string[] | null) {
  if (!teams) return query;
  if (teams.length === 0) return query.where(sql<boolean>`1 = 0`);
  const members = db()
    .selectFrom("team_member")
    .select("team_member.user_id")
    .where("team_member.team_id", "in", teams);
  return query.where((eb) =>
    eb.or([
      eb.and([eb("audit_log.target_type", "=", "team"), eb("audit_log.target_id", "in", teams)]),
      eb.and([eb("audit_log.target_type", "=", "user"), eb("audit_log.target_id", "in", members)]),
      eb("audit_log.actor_id", "in", members),
    ]),
  );
}

function periodStart(within: AuditFilters["within"]): string | null {
  return within ? new Date(Date.now() - AUDIT_PERIODS[within]).toISOString() : null;
}

function unpersonal(q: AuditFilters) {
  let query = db().selectFrom("audit_log");
  if (q.actor) {
    const actor = q.actor;
    // The action's index range carries the actor's email and id, so walking it beats fetching thousands of hits.
    const options = q.action ? { dense: ACTOR_HITS_WITH_ACTION } : {};
    query = query.where((eb) =>
      eb.or([
        searchText(db(), "audit_log", ["actor_email"], actor, options),
        inIds(db(), "audit_log.actor_id", usersMatching(["name"], actor)),
      ]),
    );
  }
  if (q.action) query = query.where("action", "=", q.action);
  const exact = q.target ? EXACT_TARGET.exec(q.target) : null;
  if (exact) {
    query = query.where("target_type", "=", exact[1]!).where("target_id", "=", exact[2]!);
  } else if (q.target) {
    const target = q.target;
    const roles = db()
      .selectFrom("role")
      .select("role.id")
      .where((r) => r.or([containsText("role.label", target), containsText("role.name", target)]));
    const teams = db()
      .selectFrom("team")
      .select("team.id")
      .where(searchText(db(), "team", ["name"], target));
    query = query.where((eb) =>
      eb.or([
        eb.and([
          eb("audit_log.target_type", "=", "user"),
          inIds(db(), "audit_log.target_id", usersMatching(["name", "email"], target)),
        ]),
        eb.and([eb("audit_log.target_type", "=", "team"), inIds(db(), "audit_log.target_id", teams)]),
        eb.and([eb("audit_log.target_type", "=", "role"), inIds(db(), "audit_log.target_id", roles)]),
        searchText(db(), "audit_log", ["target_id"], target),
      ]),
    );
  }
  if (q.from) query = query.where("created_at", ">=", `${q.from}T00:00:00.000Z`);
  if (q.to)
    query = query.where(
      "created_at",
      "<",
      new Date(Date.parse(`${q.to}T00:00:00.000Z`) + 86_400_000).toISOString(),
    );
  const since = periodStart(q.within);
  if (since) query = query.where("created_at", ">=", since);
  return query;
}

function usersMatching(columns: SearchColumn<"user">[], text: string) {
  return db()
    .selectFrom("user")
    .select("user.id")
    .where(searchText(db(), "user", columns, text));
}

const NEWEST_FIRST: Order = {
  column: "audit_log.created_at",
  output: "created_at",
  id: "audit_log.id",
  idOutput: "id",
  dir: "desc",
  nullable: false,
};

/** One index range whatever the depth. */
export function auditRowsAfter(
  q: AuditFilters,
  after: Position | null,
  limit: number,
  reverse = false,
  teams: string[] | null = null,
) {
  const order = reverse ? { ...NEWEST_FIRST, dir: flip(NEWEST_FIRST.dir) } : NEWEST_FIRST;
  return rowsAfter(
    db(),
    auditSegments(q, teams).map((query) => ({ query: query.selectAll() })),
    order,
    after,
    limit,
  );
}

export type AuditRow = Awaited<ReturnType<typeof auditRowsAfter>>[number];

/** `teams`: the reader's reach, null for the whole log. */
export async function listAudit(q: AuditQuery, teams: string[] | null = null) {
  return keysetPage<AuditRow>(q, {
    key: "created_at.desc",
    size: q.size,
    value: cursorValue.timestamp,
    nullable: false,
    positionOf: (r) => ({ value: r.created_at, id: r.id }),
    fetch: (after, reverse, limit) => auditRowsAfter(q, after, limit, reverse, teams),
  });
}
