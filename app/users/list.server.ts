import { type ExpressionBuilder, sql } from "kysely";
import { z } from "zod";
import { counterTotals } from "../../db/counted";
import {
  cappedCount,
  cursorValue,
  flip,
  type KeysetPage,
  keysetPage,
  type Order,
  type Position,
  rowsAfter,
  type Segment,
  type SortValue,
} from "../../db/keyset";
import { searchText } from "../../db/like";
import { hasNoNul } from "../../db/nul";
import type { Database } from "../../db/schema";
import { liveGlobal, liveGlobalSql } from "../access/grant-rows.server";
import { type LabelTranslations, readLabelTranslations } from "../access/label-translations";
import { compareRoles } from "../access/role-order";
import { db } from "../db.server";
import { PAGE_SIZES, USER_CREATED_WINDOWS, USER_SORTS } from "./list-options";

/** Roles one list filters by at once. */
const ROLE_FILTER_MAX = 10;
/** Longer than any role name (role-schemas.ts allows 40). */
const ROLE_NAME_MAX = 64;

// The list state lives in the URL, falling back to defaults on anything odd.
export const userListQuery = z.object({
  q: z.string().trim().max(200).refine(hasNoNul).catch(""),
  // Several roles (`?role=admin&role=manager`, kept as "admin,manager"): people holding any of them.
  // Past ROLE_FILTER_MAX names the first ones count: fewer roles list fewer people, never everyone
  // (a whole filter dropped for being long would). A name no role has matches nobody.
  role: z
    .string()
    .refine(hasNoNul)
    .transform((v) =>
      [...new Set(v.split(",", ROLE_FILTER_MAX * 4).map((name) => name.trim().slice(0, ROLE_NAME_MAX)))]
        .filter(Boolean)
        .slice(0, ROLE_FILTER_MAX)
        .sort()
        .join(","),
    )
    .catch(""),
  status: z.enum(["", "active", "disabled"]).catch(""),
  verified: z.enum(["", "yes", "no"]).catch(""),
  created: z.enum(["", ...USER_CREATED_WINDOWS]).catch(""),
  sort: z.enum(USER_SORTS).catch("created_at"),
  dir: z.enum(["asc", "desc"]).catch("desc"),
  // A bad cursor, or an old `?page=N` link, opens the first page.
  after: z.string().max(2000).optional().catch(undefined),
  before: z.string().max(2000).optional().catch(undefined),
  size: z.coerce
    .number()
    .refine((n): n is (typeof PAGE_SIZES)[number] => (PAGE_SIZES as readonly number[]).includes(n))
    .catch(25),
});

export type UserListQuery = z.infer<typeof userListQuery>;

export function parseUserListQuery(url: URL): UserListQuery {
  return userListQuery.parse(listParams(url.searchParams));
}

/** The query's keys, the last value of each (as a form would send one), the roles ticked all joined by commas. */
export function listParams(params: URLSearchParams): Record<string, string> {
  const out = Object.fromEntries(params);
  if (params.has("role")) out.role = params.getAll("role").join(",");
  return out;
}

/** 00:00 UTC six days before today's date. */
export function createdSince(window: (typeof USER_CREATED_WINDOWS)[number], now = new Date()): string {
  const days = Number.parseInt(window, 10);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * 86_400_000).toISOString();
}

const TOTAL_CAP = 1000;
const USER_STATUSES: ("active" | "disabled")[] = ["active", "disabled"];
const LIST_COLUMNS = [
  "user.id",
  "user.name",
  "user.email",
  "user.email_verified",
  "user.status",
  "user.last_login_at",
  "user.created_at",
] as const;

const SORT_VALUES: Record<UserListQuery["sort"], z.ZodType<SortValue>> = {
  name: cursorValue.text,
  email: cursorValue.text,
  created_at: cursorValue.timestamp,
  last_login_at: cursorValue.timestamp,
  status: cursorValue.text,
  email_verified: cursorValue.integer,
};

function userOrder(q: UserListQuery): Order {
  return {
    column: `user.${q.sort}`,
    output: q.sort,
    id: "user.id",
    idOutput: "id",
    dir: q.dir,
    nullable: q.sort === "last_login_at",
  };
}

type ListedUser = Omit<UserRow, "roles">;

const SMALL_ROLE = 1000;

/**
 * "none" when no known role has a holder; the holders only when few. Someone holding two of the
 * roles is read twice, which only errs towards "many".
 */
async function roleMembers(names: string[]) {
  const roles = await db().selectFrom("role").select("id").where("name", "in", names).execute();
  if (roles.length === 0) return "none" as const;
  const ids = roles.map((r) => r.id);
  // Several roles are walked with a check per person, which reads far when their holders are
  // sparse among many people: their holders are read by id up to a larger count first.
  const few = ids.length > 1 ? SMALL_ROLE * 5 : SMALL_ROLE;
  const links = await db()
    .selectFrom("user_role")
    .select("user_id")
    .where("role_id", "in", ids)
    .where(liveGlobal)
    .limit(few + 1)
    .execute();
  if (links.length === 0) return "none" as const;
  return { ids, members: links.length <= few ? [...new Set(links.map((l) => l.user_id))] : null };
}

/** Holds any of the roles over everyone. */
function holdsAny(eb: ExpressionBuilder<Database, "user">, roleIds: string[]) {
  return eb.exists(
    db()
      .selectFrom("user_role")
      .select("user_role.user_id")
      .where("user_role.user_id", "=", sql.ref<string>("user.id"))
      .where("user_role.role_id", "in", roleIds)
      .where(liveGlobal),
  );
}

type UserRow = {
  id: string;
  name: string;
  email: string;
  email_verified: number;
  status: "active" | "disabled";
  last_login_at: string | null;
  created_at: string;
  roles: { id: string; name: string; label: string; translations: LabelTranslations }[];
};

export type UserPage = {
  rows: UserRow[];
  /** Up to TOTAL_CAP; `totalCapped` when there are more ("1,000+"). */
  total: number;
  totalCapped: boolean;
} & Omit<KeysetPage<UserRow>, "rows">;

/** From the maintained counters (decision 010) when they count the filters; null otherwise (decision 023). */
function countedTotal(q: UserListQuery): Promise<{ count: number; capped: boolean }> | null {
  if (q.q || q.role || q.created || (q.status && q.verified)) return null;
  return counterTotals(db(), "", ["users.total", "users.disabled", "users.verified"]).then((c) => {
    const all = c["users.total"];
    const count = q.status
      ? q.status === "disabled"
        ? c["users.disabled"]
        : all - c["users.disabled"]
      : q.verified
        ? q.verified === "yes"
          ? c["users.verified"]
          : all - c["users.verified"]
        : all;
    return { count, capped: false };
  });
}

/** Of these few people, those holding any of the roles over everyone. */
async function holdingRole(userIds: string[], roleIds: string[]): Promise<string[]> {
  const rows = await db()
    .selectFrom("user_role")
    .select("user_id")
    .where("user_id", "in", userIds)
    .where("role_id", "in", roleIds)
    .where(liveGlobal)
    .execute();
  return [...new Set(rows.map((r) => r.user_id))];
}

/** The members of these teams when few (listed first, then sorted), else null (filtered while walking). */
async function scopeMembers(teams: string[]): Promise<string[] | null> {
  // An index range with a limit; one person in two of the teams is counted twice, which only errs towards walking.
  const rows = await db()
    .selectFrom("team_member")
    .select("user_id")
    .where("team_id", "in", teams)
    .limit(SMALL_ROLE + 1)
    .execute();
  return rows.length <= SMALL_ROLE ? [...new Set(rows.map((r) => r.user_id))] : null;
}

const EMPTY: UserPage = { rows: [], total: 0, totalCapped: false, start: 1, prev: null, next: null };

/** `teams`: the reader's reach (app/access/reach.server.ts): null for everyone, else only those teams' members. */
export async function listUsers(q: UserListQuery, teams: string[] | null = null): Promise<UserPage> {
  if (teams?.length === 0) return EMPTY;
  let base = db().selectFrom("user");
  if (q.q) {
    const text = q.q;
    base = base.where(searchText(db(), "user", ["name", "email"], text));
  }
  if (q.status) base = base.where("user.status", "=", q.status);
  if (q.verified) base = base.where("user.email_verified", "=", q.verified === "yes" ? 1 : 0);
  if (q.created) base = base.where("user.created_at", ">=", createdSince(q.created));
  const role = q.role ? await roleMembers(q.role.split(",")) : null;
  if (role === "none") return EMPTY;
  const scoped = teams ? await scopeMembers(teams) : null;
  if (scoped?.length === 0) return EMPTY;
  // A few people are the teams' ids below; many are filtered while walking.
  if (teams && !scoped) base = base.where((eb) => inTeams(eb, teams));

  // Every (status, verified) pair is one index range; a page merges the pairs the filters leave (decision 012).
  const statuses = q.status ? [q.status] : USER_STATUSES;
  const verified = q.verified ? [q.verified === "yes" ? 1 : 0] : [0, 1];
  // With only `verified` chosen, every status is named so the (status, email_verified) indexes can seek.
  const pairs = q.verified && !q.status ? base.where("user.status", "in", statuses) : base;
  const order = userOrder(q);
  const walk =
    <DB, TB extends keyof DB>(segments: Segment<DB, TB, ListedUser>[]) =>
    (after: Position | null, reverse: boolean, limit: number) =>
      rowsAfter(db(), segments, reverse ? { ...order, dir: flip(order.dir) } : order, after, limit);
  let fetch: ReturnType<typeof walk>;
  let counting: Promise<{ count: number; capped: boolean }>;
  if (q.q || role?.members || scoped) {
    // Few rows, found first, then sorted. A team's few people and a large role: which of them hold it, by key.
    const inScope = scoped && role && !role.members ? await holdingRole(scoped, role.ids) : scoped;
    if (inScope?.length === 0) return EMPTY;
    const few = inScope ? pairs.where("user.id", "in", inScope) : pairs;
    const found = role?.members
      ? few.where("user.id", "in", role.members)
      : role && !inScope
        ? few.where((eb) => holdsAny(eb, role.ids))
        : few;
    fetch = walk([{ query: found.select(LIST_COLUMNS) }]);
    counting = cappedCount(db(), found.select("user.id"), TOTAL_CAP);
  } else {
    // One large role is walked through its links; several would list a person once per role held.
    const single = role?.ids.length === 1 ? role.ids[0]! : null;
    const joined = single
      ? base.innerJoin("user_role as filter_role", (join) =>
          join
            .onRef("filter_role.user_id", "=", "user.id")
            .on("filter_role.role_id", "=", single)
            .on(liveGlobalSql("filter_role")),
        )
      : role
        ? base.where((eb) => holdsAny(eb, role.ids))
        : base;
    fetch = walk(
      statuses.flatMap((status) =>
        verified.map((ev) => ({
          query: joined
            .where("user.status", "=", status)
            .where("user.email_verified", "=", ev)
            .select(LIST_COLUMNS),
          fixed:
            q.sort === "status" ? { value: status } : q.sort === "email_verified" ? { value: ev } : undefined,
        })),
      ),
    );
    // A large role is counted from its own links: walking people in order would read most of them.
    counting = single
      ? cappedCount(
          db(),
          db()
            .selectFrom("user_role")
            .select("user_role.user_id")
            .where("user_role.role_id", "=", single)
            .where(liveGlobal)
            .where(({ exists }) =>
              exists(pairs.select("user.id").where("user.id", "=", sql.ref<string>("user_role.user_id"))),
            ),
          TOTAL_CAP,
        )
      : role
        ? cappedCount(db(), joined.where("user.status", "in", statuses).select("user.id"), TOTAL_CAP)
        : ((teams ? null : countedTotal(q)) ?? cappedCount(db(), pairs.select("user.id"), TOTAL_CAP));
  }
  const [total, page] = await Promise.all([
    counting,
    keysetPage<ListedUser>(q, {
      key: `${q.sort}.${q.dir}`,
      size: q.size,
      value: SORT_VALUES[q.sort],
      nullable: order.nullable,
      positionOf: (r) => ({ value: r[q.sort], id: r.id }),
      fetch,
    }),
  ]);
  const rows = page.rows;

  const ids = rows.map((r) => r.id);
  const links = ids.length
    ? await db()
        .selectFrom("user_role")
        .innerJoin("role", "role.id", "user_role.role_id")
        .select(["user_role.user_id", "role.id", "role.name", "role.label", "role.label_translations"])
        .where("user_role.user_id", "in", ids)
        .where(liveGlobal)
        .execute()
    : [];
  return {
    total: total.count,
    totalCapped: total.capped,
    start: page.start,
    prev: page.prev,
    next: page.next,
    rows: rows.map((r) => ({
      ...r,
      roles: links
        .filter((l) => l.user_id === r.id)
        .map(({ id, name, label, label_translations }) => ({
          id,
          name,
          label,
          translations: readLabelTranslations(label_translations),
        }))
        .sort(compareRoles),
    })),
  };
}

function inTeams(eb: ExpressionBuilder<Database, "user">, teams: string[]) {
  return eb.exists(
    eb
      .selectFrom("team_member")
      .select("team_member.user_id")
      .whereRef("team_member.user_id", "=", "user.id")
      .where("team_member.team_id", "in", teams),
  );
}

const FIND_LIMIT = 6;

/** `teams` as for listUsers. */
export async function findUsers(text: string, teams: string[] | null = null) {
  if (!text.trim() || !hasNoNul(text) || teams?.length === 0) return [];
  let query = db()
    .selectFrom("user")
    .select(["user.id", "user.name", "user.email", "user.status"])
    .where(searchText(db(), "user", ["name", "email"], text.trim()));
  if (teams) query = query.where((eb) => inTeams(eb, teams));
  return query.orderBy("user.name").orderBy("user.id").limit(FIND_LIMIT).execute();
}
