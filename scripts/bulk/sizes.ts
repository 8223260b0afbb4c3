/** How many rows of each kind a bulk load writes beside the seed. */
export type BulkSpec = {
  users: number;
  audits: number;
  tasks: number;
  teams: number;
  /** mail_log rows */
  mails: number;
  broadcasts: number;
  /** notification rows, spread over the broadcasts (the super admin receives every broadcast) */
  notifications: number;
  /** live sessions of bulk users */
  sessions: number;
};

/** The rest follows from the three figures a size names (docs/decisions/015-bench-data-sizes.md): a team per hundred people, two emails and two notices each. */
export function specFor(users: number, audits: number, tasks: number): BulkSpec {
  return {
    users,
    audits,
    tasks,
    teams: Math.max(1, Math.round(users / 100)),
    mails: users * 2,
    broadcasts: Math.min(20, Math.max(1, Math.round(users / 10))),
    notifications: users * 2,
    sessions: Math.round(users / 10),
  };
}

/** The bench's data sizes (users / audit rows / tasks). `empty` is the seed alone. */
export const SIZES = {
  empty: null,
  "10k": specFor(10_000, 100_000, 100_000),
  "100k": specFor(100_000, 1_000_000, 1_000_000),
} as const satisfies Record<string, BulkSpec | null>;

export type SizeName = keyof typeof SIZES;

export function isSizeName(name: string): name is SizeName {
  return Object.hasOwn(SIZES, name);
}
