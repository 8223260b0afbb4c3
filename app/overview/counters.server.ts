import { db } from "../db.server";

export const SYSTEM = "";

export type Counters = {
  /** 0 when nothing was ever counted. */
  total(name: string): number;
  /** By the rest of the name; zeros left out. */
  group(prefix: string): Record<string, number>;
  perDay(name: string, days: string[]): number[];
};

export function countersQuery(scope: string, since: string) {
  const base = db().selectFrom("stat_count").select(["day", "name", "n"]).where("scope", "=", scope);
  return base.where("day", "=", "").unionAll(base.where("day", ">=", since));
}

/** A few dozen rows at any data size (decision 010). */
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
