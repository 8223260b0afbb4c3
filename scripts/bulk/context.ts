import type { Column, Row } from "./insert-rows";
import type { BulkSpec } from "./sizes";

export const DAY = 86_400_000;

/** What every generator needs: the spec, one clock, a repeatable random source, the ids made so far. */
export type BulkContext = {
  spec: BulkSpec;
  now: number;
  random: () => number;
  owner: { id: string; email: string };
  roles: { user: string; manager: string; admin: string };
  userIds: string[];
  teamIds: string[];
  broadcastIds: string[];
  /** The audit chain's head: the bulk rows are chained on from it (app/audit/chain.ts). */
  auditHead: { seq: number; hash: string };
};

export type TableLoad = { table: string; columns: readonly Column[]; rows: () => Iterable<Row> };

/** mulberry32: the same data on every run, so two runs of the bench read the same rows. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const DEPARTMENTS = [
  "Support",
  "Sales",
  "Engineering",
  "Finance",
  "Operations",
  "Marketing",
  "Legal",
  "People",
];
export const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
];

export const pick = <T>(ctx: BulkContext, list: readonly T[]): T =>
  list[Math.floor(ctx.random() * list.length)]!;
export const iso = (ms: number) => new Date(ms).toISOString();
export const emailOf = (n: number) => `person${n}@bulk.test`;
export const ip = (ctx: BulkContext) => `198.51.100.${1 + Math.floor(ctx.random() * 200)}`;
/** Spread `n` of `count` evenly, oldest first, over the last `days` days (rows arrive in time order). */
export const spread = (ctx: BulkContext, n: number, count: number, days: number) =>
  ctx.now - days * DAY + Math.floor(((n + ctx.random()) * days * DAY) / Math.max(1, count));
