// What the overview counts (decision 010). Changing this needs a migration that reinstalls the
// triggers and recounts, or deployed databases keep the old ones.

/** `r` names the row (NEW, OLD, or a row of a table). */
type CountedKey = {
  /** '' (the default) for the whole system, or an expression: a user's own counters. */
  scope?: (r: string) => string;
  name: (r: string) => string;
  /** A timestamp column: the key is per UTC day of it ('' when absent). */
  day?: string;
  when?: (r: string) => string;
};

export type CountedTable = {
  table: string;
  /** A TRUNCATE on PostgreSQL drops every counter with this prefix. */
  prefix: string;
  /** Updating none of them moves no counter. */
  columns: string[];
  keys: CountedKey[];
};

const LOGIN = "auth.login.succeeded";
export const TEAM_MEMBERS = "team.members";
export const BROADCAST_READS = "broadcast.reads";

/** The counter goes with the role's last link, so a deleted role leaves none behind. As migration 018 installed it. */
export const ROLE_MEMBERS_018: CountedTable = {
  table: "user_role",
  prefix: "roles.",
  columns: ["role_id"],
  keys: [{ scope: (r) => `${r}.role_id`, name: () => "'roles.members'" }],
};

/** Since migration 036: the people holding the role over everyone (what the users list's role filter shows). */
export const ROLE_MEMBERS: CountedTable = {
  ...ROLE_MEMBERS_018,
  columns: ["role_id", "team_id"],
  keys: [
    { scope: (r) => `${r}.role_id`, name: () => "'roles.members'", when: (r) => `${r}.team_id is null` },
  ],
};

/** Migration 012 installs exactly these (decision 016); "team." is not a prefix of "teams.total". */
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

export const COUNTED: CountedTable[] = [...COUNTED_009, ...COUNTED_012, ROLE_MEMBERS];
