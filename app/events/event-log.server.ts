import { type Kysely, sql } from "kysely";
import { dialectOf } from "../../db/connection";
import type { Database } from "../../db/schema";
import { db, now } from "../db.server";
import type { SystemEvent } from "./event-types";

// Events under a global, ordered id, so a client reconnecting with Last-Event-ID on any instance is
// sent what it missed (decision 029).

export const EVENT_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Per user within the window, so a person with a busy script keeps the last ones. */
export const MAX_EVENTS_PER_USER = 10_000;
/** A reconnect that missed more than this reconciles instead: one write, not thousands of frames. */
export const REPLAY_LIMIT = 500;

/** A broadcast to every user is a few statements, not one a user. */
const CHUNK = 500;
// Held from the id's assignment to the commit, so ids commit, and their NOTIFYs arrive, in id order.
export const EVENT_ORDER_LOCK = 4_200_118;
// Bounded, so a stuck holder costs a few retries, after which the bus delivers the events without ids.
const EVENT_LOCK_WAIT_MS = 3_000;
const EVENT_LOCK_ATTEMPTS = 3;
const LOCK_TIMEOUT = "55P03";

export type LoggedEvent = { id: number; event: SystemEvent };

export type Replay =
  | { kind: "events"; events: LoggedEvent[] }
  /** Sent with the reconcile frame so live events go on from it. */
  | { kind: "reconcile"; newest: number | null };

/** PostgreSQL delivers NOTIFYs sent in the writing transaction at commit, in order. */
type Announce = (logged: readonly LoggedEvent[]) => { channel: string; payloads: string[] };

export interface EventLog {
  append(events: readonly SystemEvent[], announce?: Announce): Promise<LoggedEvent[]>;
  /**
   * In the caller's transaction, so the events are logged (and announced) exactly when the change
   * they tell of commits: nothing between the two can lose them (a stop cutting a request, a pool
   * closing under it). Call it last in the transaction: on PostgreSQL it holds the order lock to commit.
   */
  appendIn(
    trx: Kysely<Database>,
    events: readonly SystemEvent[],
    announce?: Announce,
  ): Promise<LoggedEvent[]>;
  replay(userId: string, afterId: number): Promise<Replay>;
  newest(userId: string): Promise<number | null>;
}

type Pending = {
  events: readonly SystemEvent[];
  announce?: Announce;
  resolve(logged: LoggedEvent[]): void;
  reject(error: unknown): void;
};

/** Appends raised in one tick share one transaction, so events keep the order they were published in. */
export function createDbEventLog(handle: () => Kysely<Database> = db): EventLog {
  const pruner = createWayPruner(handle);
  async function newestOf(userId: string): Promise<number | null> {
    const newest = await handle()
      .selectFrom("event_log")
      .select("id")
      .where("user_id", "=", userId)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    return newest ? Number(newest.id) : null;
  }
  let pending: Pending[] = [];
  let writing = false;

  async function write(batch: Pending[]): Promise<LoggedEvent[][]> {
    return handle()
      .transaction()
      .execute((trx) => writeWithin(trx, batch));
  }

  async function writeWithin(trx: Kysely<Database>, batch: readonly Omit<Pending, "resolve" | "reject">[]) {
    const postgres = dialectOf(trx as Kysely<unknown>) === "postgres";
    const created_at = now();
    // Set in the subquery, evaluated first, so it applies before the wait begins.
    if (postgres)
      await sql`select pg_advisory_xact_lock(${EVENT_ORDER_LOCK}) from (select set_config('lock_timeout', ${String(EVENT_LOCK_WAIT_MS)}, true)) as bounded`.execute(
        trx,
      );
    const all = batch.flatMap((p) => p.events);
    const ids: number[] = [];
    for (let i = 0; i < all.length; i += CHUNK) {
      const rows = await trx
        .insertInto("event_log")
        .values(
          all
            .slice(i, i + CHUNK)
            .map((e) => ({ user_id: e.userId, type: e.type, data: JSON.stringify(e), created_at })),
        )
        .returning("id")
        .execute();
      ids.push(...rows.map((r) => Number(r.id)).sort((a, b) => a - b));
    }
    let at = 0;
    const out = batch.map((p) => p.events.map((event) => ({ id: ids[at++]!, event })));
    const notices = new Map<string, string[]>();
    batch.forEach((p, i) => {
      const notice = p.announce?.(out[i]!);
      if (notice) notices.set(notice.channel, [...(notices.get(notice.channel) ?? []), ...notice.payloads]);
    });
    if (postgres) {
      for (const [channel, list] of notices) {
        for (let i = 0; i < list.length; i += CHUNK) {
          const payloads = list.slice(i, i + CHUNK);
          await sql`select pg_notify(${channel}, p) from unnest(${payloads}::text[]) with ordinality as t(p, i) order by i`.execute(
            trx,
          );
        }
      }
    }
    return out;
  }

  async function writeRetrying(batch: Pending[]): Promise<LoggedEvent[][]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(batch);
      } catch (error) {
        if (attempt >= EVENT_LOCK_ATTEMPTS || (error as { code?: string })?.code !== LOCK_TIMEOUT)
          throw error;
      }
    }
  }

  async function drain() {
    writing = true;
    // A microtask, not a timer, so a test's fake clock cannot hold the batch.
    await Promise.resolve();
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        const logged = await writeRetrying(batch);
        batch.forEach((p, i) => {
          p.resolve(logged[i]!);
        });
        pruner.noteAppended(batch.flatMap((p) => p.events));
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    writing = false;
  }

  return {
    append(events, announce) {
      if (events.length === 0) return Promise.resolve([]);
      return new Promise<LoggedEvent[]>((resolve, reject) => {
        pending.push({ events, announce, resolve, reject });
        if (!writing) void drain();
      });
    },

    async appendIn(trx, events, announce) {
      if (events.length === 0) return [];
      const [logged] = await writeWithin(trx, [{ events, announce }]);
      pruner.noteAppended(events);
      return logged!;
    },

    newest: newestOf,

    async replay(userId, afterId) {
      const database = handle();
      const rows = await database
        .selectFrom("event_log")
        .select(["id", "data"])
        .where("user_id", "=", userId)
        .where("id", ">", afterId)
        .orderBy("id")
        .limit(REPLAY_LIMIT + 1)
        .execute();
      const reconcile = async (): Promise<Replay> => ({ kind: "reconcile", newest: await newestOf(userId) });
      if (rows.length > REPLAY_LIMIT) return reconcile();
      if (!(await windowCovers(database, userId, afterId))) return reconcile();
      return { kind: "events", events: rows.map((r) => ({ id: Number(r.id), event: JSON.parse(r.data) })) };
    },
  };
}

/**
 * Pruning takes a user's oldest events first, so a retained event at or before `afterId` proves
 * nothing after it was pruned. An id never issued is refused: it would skip live events.
 */
async function windowCovers(database: Kysely<Database>, userId: string, afterId: number): Promise<boolean> {
  const bounds = await sql<{
    lo: number | null;
    hi: number | null;
  }>`select (select min(id) from event_log) as lo, (select max(id) from event_log) as hi`.execute(database);
  const { lo, hi } = bounds.rows[0] ?? { lo: null, hi: null };
  if (hi === null || afterId > Number(hi)) return false;
  const earlier = await database
    .selectFrom("event_log")
    .select("id")
    .where("user_id", "=", userId)
    .where("id", "<=", afterId)
    .limit(1)
    .executeTakeFirst();
  if (earlier) return true;
  if (lo === null || afterId < Number(lo)) return false;
  const kept = await database
    .selectFrom((eb) =>
      eb
        .selectFrom("event_log")
        .select("id")
        .where("user_id", "=", userId)
        .limit(MAX_EVENTS_PER_USER)
        .as("mine"),
    )
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(kept.n) < MAX_EVENTS_PER_USER;
}

async function pruneUser(database: Kysely<Database>, userId: string): Promise<number> {
  const result = await database
    .deleteFrom("event_log")
    .where("user_id", "=", userId)
    .where("id", "<", (eb) =>
      eb
        .selectFrom("event_log")
        .select("id")
        .where("user_id", "=", userId)
        .orderBy("id", "desc")
        .limit(1)
        .offset(MAX_EVENTS_PER_USER - 1),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function pruneEventLog(at = new Date(), handle: () => Kysely<Database> = db): Promise<number> {
  const database = handle();
  const cutoff = new Date(at.getTime() - EVENT_WINDOW_MS).toISOString();
  const old = await database.deleteFrom("event_log").where("created_at", "<", cutoff).executeTakeFirst();
  let deleted = Number(old.numDeletedRows);
  const crowded = await database
    .selectFrom("event_log")
    .select("user_id")
    .groupBy("user_id")
    .having((eb) => eb.fn.countAll(), ">", MAX_EVENTS_PER_USER)
    .execute();
  for (const { user_id } of crowded) deleted += await pruneUser(database, user_id);
  return deleted;
}

const PRUNE_EVERY = 1_000;
/** Past this the counts start over, so memory stays bounded. */
const MAX_COUNTED_USERS = 100_000;

/** Between the daily runs, in the background and one at a time; the daily run catches up on failure. */
function createWayPruner(handle: () => Kysely<Database>) {
  let since = 0;
  const perUser = new Map<string, number>();
  let running = false;
  const due = new Set<string>();
  let timeDue = false;

  async function run() {
    running = true;
    try {
      while (timeDue || due.size > 0) {
        const database = handle();
        if (timeDue) {
          timeDue = false;
          const cutoff = new Date(Date.now() - EVENT_WINDOW_MS).toISOString();
          await database.deleteFrom("event_log").where("created_at", "<", cutoff).execute();
        }
        const [user] = due;
        if (user !== undefined) {
          due.delete(user);
          await pruneUser(database, user);
        }
      }
    } catch (error) {
      console.error(error);
    } finally {
      running = false;
    }
  }

  return {
    noteAppended(events: readonly SystemEvent[]) {
      since += events.length;
      if (since >= PRUNE_EVERY) {
        since = 0;
        timeDue = true;
      }
      if (perUser.size > MAX_COUNTED_USERS) perUser.clear();
      for (const e of events) {
        const n = (perUser.get(e.userId) ?? 0) + 1;
        if (n >= PRUNE_EVERY) {
          perUser.delete(e.userId);
          due.add(e.userId);
        } else perUser.set(e.userId, n);
      }
      if (!running && (timeDue || due.size > 0)) void run();
    },
  };
}

/** For a bus on its own (tests, tools). */
export function createMemoryEventLog(capacity = MAX_EVENTS_PER_USER): EventLog {
  let next = 0;
  let entries: LoggedEvent[] = [];
  let droppedUpTo = 0;
  const log: EventLog = {
    appendIn: (_trx, events) => log.append(events),
    async append(events) {
      const logged = events.map((event) => ({ id: ++next, event }));
      entries.push(...logged);
      if (entries.length > capacity) {
        const cut = entries.length - capacity;
        droppedUpTo = entries[cut - 1]!.id;
        entries = entries.slice(cut);
      }
      return logged;
    },
    async newest(userId) {
      return entries.findLast((e) => e.event.userId === userId)?.id ?? null;
    },
    async replay(userId, afterId) {
      const mine = entries.filter((e) => e.event.userId === userId);
      const after = mine.filter((e) => e.id > afterId);
      if (afterId > next || afterId < droppedUpTo || after.length > REPLAY_LIMIT)
        return { kind: "reconcile", newest: mine.at(-1)?.id ?? null };
      return { kind: "events", events: after };
    },
  };
  return log;
}
