import { randomUUID } from "node:crypto";
import { KEYED, keyedChainHash } from "../../app/audit/chain";
import { chainKey } from "../../app/audit/signing.server";
import {
  AGENTS,
  type BulkContext,
  DAY,
  DEPARTMENTS,
  emailOf,
  ip,
  iso,
  pick,
  spread,
  type TableLoad,
} from "./context";

// What the people did over 90 days: the audit log, tasks, mail, broadcasts and their notifications.

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
      ["seq", "integer"],
      ["prev_hash"],
      ["hash"],
      ["hash_version", "integer"],
    ],
    *rows() {
      const count = ctx.spec.audits;
      const users = ctx.userIds.length;
      const key = chainKey();
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
        const row = {
          id: randomUUID(),
          actor_id: failed ? null : actorId,
          actor_email: actorEmail,
          action,
          target_type: target[0]!,
          target_id: target[1]!,
          details: auditDetails(ctx, action, n),
          ip: ip(ctx),
          user_agent: pick(ctx, AGENTS),
          created_at: iso(spread(ctx, n, count, 90)),
          impersonator_id: null,
          impersonator_email: null,
          request_id: null,
        };
        const seq = ctx.auditHead.seq + 1;
        const prevHash = ctx.auditHead.hash;
        // Keyed as the application writes them (docs/decisions/031), so the bench log verifies.
        const hash = keyedChainHash(key, prevHash, { ...row, seq });
        ctx.auditHead = { seq, hash };
        yield [
          row.id,
          row.actor_id,
          row.actor_email,
          row.action,
          row.target_type,
          row.target_id,
          row.details,
          row.ip,
          row.user_agent,
          row.created_at,
          seq,
          prevHash,
          hash,
          KEYED,
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

function recipientsPerBroadcast(ctx: BulkContext) {
  const broadcasts = Math.max(1, ctx.spec.broadcasts);
  return Math.max(0, Math.min(ctx.userIds.length, Math.floor(ctx.spec.notifications / broadcasts) - 1));
}

const broadcastTime = (ctx: BulkContext, b: number) =>
  ctx.now - 90 * DAY + Math.floor(((b + 0.5) * 90 * DAY) / Math.max(1, ctx.spec.broadcasts));
