import { randomUUID } from "node:crypto";
import type { Column, Row } from "./insert-rows";
import type { BulkSpec } from "./sizes";

const DAY = 86_400_000;

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

const FIRST = [
  "Ada",
  "Ben",
  "Chloe",
  "Dmitri",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemi",
  "Luca",
];
const LAST = [
  "Okafor",
  "Smith",
  "Nakamura",
  "García",
  "Müller",
  "Rossi",
  "Kowalski",
  "Dubois",
  "Silva",
  "Novak",
];
const DEPARTMENTS = [
  "Support",
  "Sales",
  "Engineering",
  "Finance",
  "Operations",
  "Marketing",
  "Legal",
  "People",
];
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
];
// Weighted like a working company's log: mostly sign-ins, then edits.
const ACTIONS: [action: string, weight: number][] = [
  ["auth.login.succeeded", 50],
  ["auth.login.failed", 6],
  ["auth.logout", 10],
  ["user.update", 10],
  ["task.create", 10],
  ["team.member.add", 5],
  ["user.create", 4],
  ["settings.update", 2],
  ["account.password.change", 2],
  ["role.permissions.update", 1],
];
const ACTION_TABLE = ACTIONS.flatMap(([a, w]) => Array<string>(w).fill(a));
const TASK_TYPES = ["report.generate", "report.generate", "report.generate", "users.export", "audit.export"];

const pick = <T>(ctx: BulkContext, list: readonly T[]): T => list[Math.floor(ctx.random() * list.length)]!;
const iso = (ms: number) => new Date(ms).toISOString();
const emailOf = (n: number) => `person${n}@bulk.test`;
const ip = (ctx: BulkContext) => `198.51.100.${1 + Math.floor(ctx.random() * 200)}`;
/** Spread `n` of `count` evenly, oldest first, over the last `days` days (rows arrive in time order). */
const spread = (ctx: BulkContext, n: number, count: number, days: number) =>
  ctx.now - days * DAY + Math.floor(((n + ctx.random()) * days * DAY) / Math.max(1, count));

export function users(ctx: BulkContext): TableLoad {
  return {
    table: "user",
    columns: [
      ["id"],
      ["name"],
      ["email"],
      ["email_verified", "integer"],
      ["status"],
      ["last_login_at", "timestamptz"],
      ["created_at", "timestamptz"],
      ["updated_at", "timestamptz"],
    ],
    *rows() {
      const count = ctx.spec.users;
      for (let n = 0; n < count; n++) {
        const id = randomUUID();
        ctx.userIds.push(id);
        const created = spread(ctx, n, count, 730);
        const verified = n % 4 !== 0;
        const login = verified ? Math.max(created, ctx.now - Math.floor(ctx.random() * 90 * DAY)) : null;
        const name = `${pick(ctx, FIRST)} ${pick(ctx, LAST)}`;
        yield [
          id,
          name,
          emailOf(n),
          verified ? 1 : 0,
          n % 20 === 0 ? "disabled" : "active",
          login && iso(login),
          iso(created),
          iso(created),
        ];
      }
    },
  };
}

export function userRoles(ctx: BulkContext): TableLoad {
  return {
    table: "user_role",
    columns: [["user_id"], ["role_id"]],
    *rows() {
      for (const [n, id] of ctx.userIds.entries()) {
        yield [id, n % 100 === 1 ? ctx.roles.admin : n % 3 === 0 ? ctx.roles.manager : ctx.roles.user];
      }
    },
  };
}

export function teams(ctx: BulkContext): TableLoad {
  return {
    table: "team",
    columns: [
      ["id"],
      ["name"],
      ["description"],
      ["created_at", "timestamptz"],
      ["updated_at", "timestamptz"],
    ],
    *rows() {
      for (let n = 0; n < ctx.spec.teams; n++) {
        const id = randomUUID();
        ctx.teamIds.push(id);
        const dept = DEPARTMENTS[n % DEPARTMENTS.length]!;
        const name = n === 0 ? "All hands" : `${dept} ${Math.floor(n / DEPARTMENTS.length) + 1}`;
        const ts = iso(spread(ctx, n, ctx.spec.teams, 700));
        yield [id, name, `${dept}: the people who run it day to day.`, ts, ts];
      }
    },
  };
}

/** Everyone is in one team (the first member of each leads it); every tenth person is also in "All hands". */
export function teamMembers(ctx: BulkContext): TableLoad {
  return {
    table: "team_member",
    columns: [["team_id"], ["user_id"], ["team_role"], ["created_at", "timestamptz"]],
    *rows() {
      const teamCount = ctx.teamIds.length;
      for (const [n, userId] of ctx.userIds.entries()) {
        const ts = iso(spread(ctx, n, ctx.userIds.length, 700));
        const team = n % teamCount;
        yield [ctx.teamIds[team]!, userId, n < teamCount ? "lead" : "member", ts];
        if (team !== 0 && n % 10 === 0) yield [ctx.teamIds[0]!, userId, "member", ts];
      }
    },
  };
}

function auditDetails(ctx: BulkContext, action: string, n: number): string | null {
  switch (action) {
    case "auth.login.succeeded":
    case "auth.logout":
      return null;
    case "auth.login.failed":
      return JSON.stringify({ reason: ctx.random() < 0.8 ? "bad_password" : "unknown_account" });
    case "user.update":
      return JSON.stringify({
        before: { name: `Person ${n}`, roles: ["user"] },
        after: { name: `Person ${n}`, roles: ["user", "manager"] },
      });
    case "task.create":
      return JSON.stringify({ type: pick(ctx, TASK_TYPES) });
    case "team.member.add":
      return JSON.stringify({ team: pick(ctx, DEPARTMENTS), role: "member" });
    default:
      return JSON.stringify({ changed: ["name"], n });
  }
}

export function auditRows(ctx: BulkContext): TableLoad {
  return {
    table: "audit_log",
    columns: [
      ["id"],
      ["actor_id"],
      ["actor_email"],
      ["action"],
      ["target_type"],
      ["target_id"],
      ["details", "jsonb"],
      ["ip"],
      ["user_agent"],
      ["created_at", "timestamptz"],
    ],
    *rows() {
      const count = ctx.spec.audits;
      const users = ctx.userIds.length;
      for (let n = 0; n < count; n++) {
        const action = pick(ctx, ACTION_TABLE);
        const byOwner = ctx.random() < 0.02;
        const actorIndex = Math.floor(ctx.random() * users);
        const actorId = byOwner ? ctx.owner.id : ctx.userIds[actorIndex]!;
        const actorEmail = byOwner ? ctx.owner.email : emailOf(actorIndex);
        const self = action.startsWith("auth.") || action.startsWith("account.");
        const failed = action === "auth.login.failed";
        const target =
          action === "task.create"
            ? ["task", randomUUID()]
            : action === "team.member.add"
              ? ["team", pick(ctx, ctx.teamIds)]
              : action === "settings.update"
                ? ["settings", null]
                : ["user", self ? actorId : ctx.userIds[Math.floor(ctx.random() * users)]!];
        yield [
          randomUUID(),
          failed ? null : actorId,
          actorEmail,
          action,
          target[0]!,
          target[1]!,
          auditDetails(ctx, action, n),
          ip(ctx),
          pick(ctx, AGENTS),
          iso(spread(ctx, n, count, 90)),
        ];
      }
    },
  };
}

/** Finished work only: a pending or running task in the data would be picked up (or failed) by the runner at start. */
export function tasks(ctx: BulkContext): TableLoad {
  return {
    table: "task",
    columns: [
      ["id"],
      ["type"],
      ["status"],
      ["user_id"],
      ["payload", "jsonb"],
      ["result", "jsonb"],
      ["created_at", "timestamptz"],
      ["updated_at", "timestamptz"],
      ["completed_at", "timestamptz"],
    ],
    *rows() {
      const count = ctx.spec.tasks;
      for (let n = 0; n < count; n++) {
        const type = pick(ctx, TASK_TYPES);
        const failed = ctx.random() < 0.12;
        const created = spread(ctx, n, count, 90);
        const done = iso(created + 500 + Math.floor(ctx.random() * 30_000));
        const owner = ctx.random() < 0.01 ? ctx.owner.id : pick(ctx, ctx.userIds);
        const payload =
          type === "report.generate"
            ? { durationMs: 1000 + Math.floor(ctx.random() * 14_000) }
            : type === "users.export"
              ? { q: "", status: "active", role: "" }
              : {
                  action: "auth.login.failed",
                  actor: "",
                  from: iso(created - 30 * DAY).slice(0, 10),
                  to: iso(created).slice(0, 10),
                };
        const result = failed
          ? { error: "The report failed, as asked: this was a simulated failure." }
          : type === "report.generate"
            ? { title: "System report", generatedAt: done, users: 1000 + n, roles: 5, tasks: n }
            : {
                file: `${type.replace(".", "-")}-${iso(created).slice(0, 10)}.csv`,
                rows: 1 + Math.floor(ctx.random() * 5000),
              };
        yield [
          randomUUID(),
          type,
          failed ? "failed" : "completed",
          owner,
          JSON.stringify(payload),
          JSON.stringify(result),
          iso(created),
          done,
          done,
        ];
      }
    },
  };
}

export function mails(ctx: BulkContext): TableLoad {
  const kinds = [
    ["verify-email", "Confirm your email address"],
    ["reset-password", "Reset your password"],
    ["invite", "You have been invited"],
    ["notification", "A notice from the admin team"],
  ] as const;
  return {
    table: "mail_log",
    columns: [
      ["id"],
      ["to_address"],
      ["type"],
      ["subject"],
      ["status"],
      ["provider_message_id"],
      ["error"],
      ["outbox_link"],
      ["created_at", "timestamptz"],
    ],
    *rows() {
      const count = ctx.spec.mails;
      for (let n = 0; n < count; n++) {
        const [type, subject] = pick(ctx, kinds);
        const r = ctx.random();
        const status = r < 0.9 ? "sent" : r < 0.95 ? "failed" : "outbox";
        yield [
          randomUUID(),
          emailOf(Math.floor(ctx.random() * ctx.spec.users)),
          type,
          subject,
          status,
          status === "sent" ? randomUUID() : null,
          status === "failed" ? "422: Invalid 'To' address" : null,
          status === "outbox" ? "http://localhost:3000/api/auth/verify-email?token=bulk" : null,
          iso(spread(ctx, n, count, 90)),
        ];
      }
    },
  };
}

export function broadcasts(ctx: BulkContext): TableLoad {
  return {
    table: "broadcast",
    columns: [
      ["id"],
      ["title"],
      ["message"],
      ["level"],
      ["link"],
      ["audience", "jsonb"],
      ["recipient_count", "integer"],
      ["email_status"],
      ["emails_sent", "integer"],
      ["emails_failed", "integer"],
      ["created_by"],
      ["created_at", "timestamptz"],
    ],
    *rows() {
      const per = recipientsPerBroadcast(ctx);
      for (let b = 0; b < ctx.spec.broadcasts; b++) {
        const id = randomUUID();
        ctx.broadcastIds.push(id);
        const email = b % 4 === 0;
        yield [
          id,
          `Notice ${b + 1}`,
          "The office is closed on Friday; the service desk answers as usual.",
          b % 5 === 0 ? "warning" : "info",
          null,
          JSON.stringify({ kind: "all" }),
          per + 1,
          email ? "done" : "none",
          email ? per : 0,
          0,
          ctx.owner.id,
          iso(broadcastTime(ctx, b)),
        ];
      }
    },
  };
}

export function notifications(ctx: BulkContext): TableLoad {
  return {
    table: "notification",
    columns: [
      ["id"],
      ["user_id"],
      ["broadcast_id"],
      ["title"],
      ["message"],
      ["level"],
      ["link"],
      ["read_at", "timestamptz"],
      ["created_at", "timestamptz"],
    ],
    *rows() {
      const per = recipientsPerBroadcast(ctx);
      const users = ctx.userIds.length;
      for (const [b, broadcastId] of ctx.broadcastIds.entries()) {
        const at = broadcastTime(ctx, b);
        const ts = iso(at);
        const recipients = [
          ctx.owner.id,
          ...Array.from({ length: per }, (_, i) => ctx.userIds[(b * per + i) % users]!),
        ];
        for (const userId of recipients) {
          const read = ctx.random() < 0.6 ? iso(at + Math.floor(ctx.random() * DAY)) : null;
          yield [
            randomUUID(),
            userId,
            broadcastId,
            `Notice ${b + 1}`,
            "The office is closed on Friday; the service desk answers as usual.",
            "info",
            null,
            read,
            ts,
          ];
        }
      }
    },
  };
}

export function sessions(ctx: BulkContext): TableLoad {
  return {
    table: "session",
    columns: [
      ["id"],
      ["user_id"],
      ["data"],
      ["ip"],
      ["user_agent"],
      ["created_at", "timestamptz"],
      ["last_seen_at", "timestamptz"],
      ["expires_at", "timestamptz"],
    ],
    *rows() {
      for (let n = 0; n < ctx.spec.sessions; n++) {
        const seen = ctx.now - Math.floor(ctx.random() * 7 * DAY);
        const userId = ctx.userIds[(n * 10 + 2) % ctx.userIds.length]!;
        yield [
          randomUUID(),
          userId,
          "{}",
          ip(ctx),
          pick(ctx, AGENTS),
          iso(seen - DAY),
          iso(seen),
          iso(seen + 30 * DAY),
        ];
      }
    },
  };
}

function recipientsPerBroadcast(ctx: BulkContext) {
  const broadcasts = Math.max(1, ctx.spec.broadcasts);
  return Math.max(0, Math.min(ctx.userIds.length, Math.floor(ctx.spec.notifications / broadcasts) - 1));
}

const broadcastTime = (ctx: BulkContext, b: number) =>
  ctx.now - 90 * DAY + Math.floor(((b + 0.5) * 90 * DAY) / Math.max(1, ctx.spec.broadcasts));
