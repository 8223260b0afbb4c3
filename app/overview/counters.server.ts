import { db } from "../db.server";

/** The system's counters (scope ''), as opposed to one user's own (scope = their id). */
export const SYSTEM = "";

export type Counters = {
  /** A total: `total("users.verified")`; 0 when nothing was ever counted. */
  total(name: string): number;
  /** Totals whose name starts with `prefix`, by the rest of the name: `{ pending: 3, … }`; zeros left out. */
  group(prefix: string): Record<string, number>;
  /** One count per day of `days` (UTC dates). */
  perDay(name: string, days: string[]): number[];
};

/** Two ranges of the primary key (scope, day, name): the totals (day '') and the days since `since`. */
export function countersQuery(scope: string, since: string) {
  const base = db().selectFrom("stat_count").select(["day", "name", "n"]).where("scope", "=", scope);
  return base.where("day", "=", "").unionAll(base.where("day", ">=", since));
}

/**
 * The counters of `scope` (kept by the triggers of migration 009): its totals and its per-day
 * counts since `since`: a few dozen rows at any data size.
 */
export async function readCounters(scope: string, since: string): Promise<Counters> {
  const rows = await countersQuery(scope, since).execute();
  const totals = new Map<string, number>();
  const daily = new Map<string, number>();
  for (const r of rows) {
    if (r.day === "") totals.set(r.name, Number(r.n));
    else daily.set(`${r.name}|${r.day}`, Number(r.n));
  }
  return {
    total: (name) => totals.get(name) ?? 0,
    group: (prefix) =>
      Object.fromEntries(
        [...totals]
          .filter(([k, n]) => k.startsWith(prefix) && n !== 0)
          .map(([k, n]) => [k.slice(prefix.length), n]),
      ),
    perDay: (name, days) => days.map((d) => daily.get(`${name}|${d}`) ?? 0),
  };
}
