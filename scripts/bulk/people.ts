import { randomUUID } from "node:crypto";
import { sessionHandle } from "../../app/auth/session-handle";
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

// The people: users with a role each, teams and their members, live sessions.

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

/**
 * One person in ten holds `admin` within their own team (decision 044): 10k grants within teams at
 * 100k people, whose lists and pages the bench reads as a scoped lead does.
 */
export function scopedGrants(ctx: BulkContext): TableLoad {
  return {
    table: "user_role",
    columns: [["id"], ["user_id"], ["role_id"], ["team_id"], ["granted_at", "timestamptz"]],
    *rows() {
      const teamCount = ctx.teamIds.length;
      const ts = iso(ctx.now);
      for (const [n, userId] of ctx.userIds.entries()) {
        if (n % 10 !== 5) continue;
        yield [randomUUID(), userId, ctx.roles.admin, ctx.teamIds[n % teamCount]!, ts];
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
      ["handle"],
    ],
    *rows() {
      for (let n = 0; n < ctx.spec.sessions; n++) {
        const seen = ctx.now - Math.floor(ctx.random() * 7 * DAY);
        const userId = ctx.userIds[(n * 10 + 2) % ctx.userIds.length]!;
        const id = randomUUID();
        yield [
          id,
          userId,
          "{}",
          ip(ctx),
          pick(ctx, AGENTS),
          iso(seen - DAY),
          iso(seen),
          iso(seen + 30 * DAY),
          sessionHandle(id),
        ];
      }
    },
  };
}
