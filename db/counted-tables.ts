// What the overview counts (docs/decisions/010-maintained-aggregates.md): for each counted
// table, the keys a row adds 1 to. `scope` is '' for the whole system or a user id (that user's
// own tasks) or a role id (its members); `day` is a UTC date or '' for a total. Changing this needs a migration that
// reinstalls the triggers and recounts (as 009 does), or deployed databases keep the old ones.

/** `r` is how the key's expressions name the row (NEW, OLD, or a row of a table). */
type CountedKey = {
  /** '' (the default) for the whole system, or an expression: a user's own counters. */
  scope?: (r: string) => string;
  name: (r: string) => string;
  /** A timestamp column: the key is per UTC day of it ('' when absent). */
  day?: string;
  /** Only rows for which this holds count under the key. */
  when?: (r: string) => string;
};

export type CountedTable = {
  table: string;
  /** Every counter name of this table starts with it (a TRUNCATE on PostgreSQL drops them). */
  prefix: string;
  /** The columns the keys read: updating none of them moves no counter. */
  columns: string[];
  keys: CountedKey[];
};

const LOGIN = "auth.login.succeeded";
/** A team's members (scope: the team's id). */
export const TEAM_MEMBERS = "team.members";
/** A broadcast's notifications that were read (scope: the broadcast's id). */
export const BROADCAST_READS = "broadcast.reads";

/**
 * How many people hold each role (the access page), scoped by the role's id: the counter goes
 * with the role's last link, so a deleted role leaves none behind (migration 018_list_paths).
 */
export const ROLE_MEMBERS: CountedTable = {
  table: "user_role",
  prefix: "roles.",
  columns: ["role_id"],
  keys: [{ scope: (r) => `${r}.role_id`, name: () => "'roles.members'" }],
};

/**
 * Migration 012 (docs/decisions/016-maintained-counts.md), which installs and backfills exactly
 * these: the teams list's and a team page's member counts, and the broadcast history's read
 * counts, one counter per team or broadcast (scope = its id, a UUID like a user's, so no scope is
 * shared). "team." is not a prefix of "teams.total", nor the other way round.
 */
export const COUNTED_012: CountedTable[] = [
  {
    table: "team_member",
    prefix: "team.",
    columns: ["team_id"],
    keys: [{ scope: (r) => `${r}.team_id`, name: () => `'${TEAM_MEMBERS}'` }],
  },
  {
    table: "notification",
    prefix: "broadcast.",
    columns: ["broadcast_id", "read_at"],
    keys: [
      {
        scope: (r) => `${r}.broadcast_id`,
        name: () => `'${BROADCAST_READS}'`,
        when: (r) => `${r}.broadcast_id is not null and ${r}.read_at is not null`,
      },
    ],
  },
];

/** What migration 009 installed and backfilled. */
export const COUNTED_009: CountedTable[] = [
  {
    table: "user",
    prefix: "users.",
    columns: ["email_verified", "status", "created_at"],
    keys: [
      { name: () => "'users.total'" },
      { name: () => "'users.verified'", when: (r) => `${r}.email_verified = 1` },
      { name: () => "'users.disabled'", when: (r) => `${r}.status = 'disabled'` },
      { name: () => "'users.created'", day: "created_at" },
    ],
  },
  { table: "team", prefix: "teams.", columns: [], keys: [{ name: () => "'teams.total'" }] },
  {
    table: "task",
    prefix: "tasks.",
    columns: ["status", "user_id", "created_at"],
    keys: [
      { name: (r) => `'tasks.status.' || ${r}.status` },
      { name: () => "'tasks.created'", day: "created_at" },
      { scope: (r) => `${r}.user_id`, name: (r) => `'tasks.status.' || ${r}.status` },
      { scope: (r) => `${r}.user_id`, name: () => "'tasks.created'", day: "created_at" },
    ],
  },
  {
    table: "mail_log",
    prefix: "mail.",
    columns: ["status"],
    keys: [{ name: (r) => `'mail.status.' || ${r}.status` }],
  },
  {
    table: "audit_log",
    prefix: "signins.",
    columns: ["action", "created_at"],
    keys: [{ name: () => "'signins.day'", day: "created_at", when: (r) => `${r}.action = '${LOGIN}'` }],
  },
];

/** Every counted table: what the triggers of migrations 009, 012 and 018 keep, and writeUncounted recounts. */
export const COUNTED: CountedTable[] = [...COUNTED_009, ...COUNTED_012, ROLE_MEMBERS];
