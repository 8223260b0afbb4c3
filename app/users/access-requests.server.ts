import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { AccessRequestStatus } from "../../db/schema";
import { isUniqueViolation } from "../../db/unique-violation";
import type { AccessRequestView, accessRequestInput } from "../access/access-request-schemas";
import { SCOPABLE } from "../access/decide";
import { type RoleGrant, roleGrants } from "../access/role-cache.server";
import { holdsRoleThere, mayDecideGrant } from "../access/rules.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { Conflict, InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { tellDeciders, tellRequester } from "./access-request-notices.server";
import { grantRole } from "./grants.server";

// Access requests (docs/decisions/047-access-requests.md): a person asks for a requestable role for
// some hours with a reason; someone with roles.manage who holds every permission of the role in
// that scope, never the requester, approves (a grant that ends after those hours, made by the
// grants module under its own rules) or denies with a comment. Unanswered, a request ends after 72 h.

const PENDING_HOURS = 72;
const PENDING_MS = PENDING_HOURS * 3_600_000;
const LIST_LIMIT = 200;

type Decider = Pick<SessionUser, "id" | "email" | "isSuperAdmin" | "permissions" | "grants">;

const isoOf = (v: string | Date) => new Date(v).toISOString();
const endsAt = (createdAt: string | Date) =>
  new Date(Date.parse(isoOf(createdAt)) + PENDING_MS).toISOString();

function baseQuery() {
  return db()
    .selectFrom("access_request as r")
    .innerJoin("user as u", "u.id", "r.user_id")
    .leftJoin("user as d", "d.id", "r.decided_by")
    .leftJoin("team as t", "t.id", "r.team_id")
    .select([
      "r.id",
      "r.user_id",
      "r.role_id",
      "r.team_id",
      "r.hours",
      "r.reason",
      "r.status",
      "r.created_at",
      "r.decided_by",
      "r.decided_at",
      "r.comment",
      "r.grant_id",
      "u.name as user_name",
      "u.email as user_email",
      "d.name as decider_name",
      "t.name as team_name",
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof baseQuery>["executeTakeFirstOrThrow"]>>;

function view(
  row: Row,
  roles: Map<string, RoleGrant>,
  reader: Decider,
  at = Date.now(),
): AccessRequestView | null {
  const role = roles.get(row.role_id);
  if (!role) return null;
  const expiresAt = endsAt(row.created_at);
  // Past its 72 h it is expired, whether or not the hourly job has marked it.
  const status = row.status === "pending" && Date.parse(expiresAt) <= at ? "expired" : row.status;
  return {
    id: row.id,
    status,
    user: { id: row.user_id, name: row.user_name, email: row.user_email },
    role: { name: role.name, label: role.label },
    team: row.team_id ? { id: row.team_id, name: row.team_name ?? "" } : null,
    hours: row.hours,
    reason: row.reason,
    createdAt: isoOf(row.created_at),
    expiresAt,
    decidedBy: row.decided_by ? { id: row.decided_by, name: row.decider_name ?? "" } : null,
    decidedAt: row.decided_at ? isoOf(row.decided_at) : null,
    comment: row.comment,
    grantId: row.grant_id,
    mayDecide: status === "pending" && mayDecideGrant(reader, row, role),
  };
}

async function one(id: string, reader: Decider): Promise<AccessRequestView> {
  const row = await baseQuery().where("r.id", "=", id).executeTakeFirst();
  const found = row && view(row, await roleGrants(), reader);
  if (!found) throw new NotFound("access.request.gone");
  return found;
}

export async function createAccessRequest(
  actor: SessionUser,
  input: z.infer<typeof accessRequestInput>,
  origin: AuditOrigin,
): Promise<AccessRequestView> {
  const role = [...(await roleGrants()).values()].find((r) => r.name === input.role);
  if (!role) throw new InvalidInput("access.grant.roleUnknown", "role");
  if (role.all || role.maxRequestHours === null)
    throw new InvalidInput("access.request.notRequestable", "role", { role: role.label });
  if (input.hours > role.maxRequestHours)
    throw new InvalidInput("access.request.tooLong", "hours", {
      role: role.label,
      hours: role.maxRequestHours,
    });
  const teamId = input.team ?? null;
  if (teamId) {
    // Only a team one belongs to: any other answers as one that does not exist (no oracle).
    const member = await db()
      .selectFrom("team_member")
      .select("team_id")
      .where("team_id", "=", teamId)
      .where("user_id", "=", actor.id)
      .executeTakeFirst();
    if (!member) throw new InvalidInput("access.grant.teamUnknown", "team");
    if (![...role.permissions].some((p) => SCOPABLE.has(p)))
      throw new InvalidInput("access.grant.nothingInTeam", "role", { role: role.label });
  }
  const live = (g: { expiresAt: string | null }) =>
    g.expiresAt === null || Date.parse(g.expiresAt) > Date.now();
  // Held: the role itself in that scope, or, over everyone, all it gives already (a super admin's
  // request for admin, say, would only lead to a grant that changes nothing).
  const givesNothingNew = teamId === null ? holdsRoleThere(actor, role, null) : actor.isSuperAdmin;
  if (
    givesNothingNew ||
    actor.grants.some((g) => g.role.id === role.id && (g.team?.id ?? null) === teamId && live(g))
  )
    throw new Conflict("access.request.held", { role: role.label });
  const id = randomUUID();
  await db()
    .transaction()
    .execute(async (trx) => {
      // One pending request per person, role and scope; an unanswered one past its 72 h is over.
      await trx
        .updateTable("access_request")
        .set({ status: "expired" })
        .where("user_id", "=", actor.id)
        .where("role_id", "=", role.id)
        .where("status", "=", "pending")
        .where("created_at", "<=", new Date(Date.now() - PENDING_MS).toISOString())
        .execute();
      const pending = trx
        .selectFrom("access_request")
        .select("id")
        .where("user_id", "=", actor.id)
        .where("role_id", "=", role.id)
        .where("status", "=", "pending");
      const open = await (teamId
        ? pending.where("team_id", "=", teamId)
        : pending.where("team_id", "is", null)
      ).executeTakeFirst();
      if (open) throw new Conflict("access.request.pending", { role: role.label });
      await trx
        .insertInto("access_request")
        .values({
          id,
          user_id: actor.id,
          role_id: role.id,
          team_id: teamId,
          hours: input.hours,
          reason: input.reason,
          status: "pending",
          created_at: now(),
        })
        .execute();
      await audit(
        origin,
        {
          action: "access_request.created",
          actor,
          target: { type: "access_request", id },
          details: { role: role.name, team: teamId, hours: input.hours, reason: input.reason },
        },
        trx,
      );
    })
    .catch((error: unknown) => {
      // Two requests at once: the pending index lets one in.
      if (error instanceof Conflict) throw error;
      if (isUniqueViolation(error)) throw new Conflict("access.request.pending", { role: role.label });
      throw error;
    });
  const created = await one(id, actor);
  await tellDeciders(created, role);
  return created;
}

export async function listAccessRequests(
  actor: SessionUser,
  status?: AccessRequestStatus,
): Promise<AccessRequestView[]> {
  const roles = await roleGrants();
  const decider = actor.isSuperAdmin || actor.permissions.has("roles.manage");
  let query = baseQuery().orderBy("r.created_at", "desc").limit(LIST_LIMIT);
  if (!decider) query = query.where("r.user_id", "=", actor.id);
  // "pending" and "expired" are read by time as well as by the stored status.
  if (status === "pending" || status === "expired")
    query = query.where("r.status", "in", ["pending", "expired"]);
  else if (status) query = query.where("r.status", "=", status);
  const views = (await query.execute()).flatMap((row) => view(row, roles, actor) ?? []);
  return views.filter(
    (v) => (!status || v.status === status) && (v.user.id === actor.id || mayDecideAny(actor, v, roles)),
  );
}

/** A decider sees the requests they may decide, and keeps seeing them once decided. */
function mayDecideAny(actor: Decider, v: AccessRequestView, roles: Map<string, RoleGrant>) {
  const role = [...roles.values()].find((r) => r.name === v.role.name);
  return mayDecideGrant(actor, { user_id: v.user.id, team_id: v.team?.id ?? null }, role);
}

export type Decision = { approve: true; comment?: string } | { approve: false; comment: string };

export async function decideAccessRequest(
  actor: SessionUser,
  id: string,
  decision: Decision,
  origin: AuditOrigin,
): Promise<AccessRequestView> {
  const row = await db().selectFrom("access_request").selectAll().where("id", "=", id).executeTakeFirst();
  const role = row && (await roleGrants()).get(row.role_id);
  if (!row || !role) throw new NotFound("access.request.gone");
  if (actor.id === row.user_id) throw new RuleViolation("access.request.own");
  if (!mayDecideGrant(actor, row, role))
    throw new RuleViolation("access.request.decide", { role: role.label });
  const ts = now();
  const status = decision.approve ? "approved" : "denied";
  // Claimed before the grant: of two deciders at once, one wins and the other hears 409.
  const claimed = await db()
    .updateTable("access_request")
    .set({ status, decided_by: actor.id, decided_at: ts, comment: decision.comment || null })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where("created_at", ">", new Date(Date.now() - PENDING_MS).toISOString())
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) throw new Conflict("access.request.notPending");
  let grantId: string | null = null;
  if (decision.approve) {
    try {
      const grant = await grantRole(
        actor,
        row.user_id,
        {
          role: role.name,
          team: row.team_id ?? undefined,
          expiresAt: new Date(Date.now() + row.hours * 3_600_000).toISOString(),
        },
        origin,
      );
      grantId = grant.id;
    } catch (error) {
      // The grants module's own rules refused (the person is out of reach, holds it already…):
      // the request stays open for someone who may.
      await db()
        .updateTable("access_request")
        .set({ status: "pending", decided_by: null, decided_at: null, comment: null })
        .where("id", "=", id)
        .execute();
      throw error;
    }
  }
  await db()
    .transaction()
    .execute(async (trx) => {
      if (grantId)
        await trx.updateTable("access_request").set({ grant_id: grantId }).where("id", "=", id).execute();
      await audit(
        origin,
        {
          action: decision.approve ? "access_request.approved" : "access_request.denied",
          actor,
          target: { type: "access_request", id },
          details: {
            requester: row.user_id,
            role: role.name,
            team: row.team_id,
            hours: row.hours,
            comment: decision.comment ?? null,
            grant: grantId,
          },
        },
        trx,
      );
    });
  const decided = await one(id, actor);
  await tellRequester(decided);
  return decided;
}

const jobOrigin = {
  request: new Request("http://internal/access-requests", { headers: { "User-Agent": "access-requests" } }),
};

/** Hourly: requests unanswered for 72 h end, each audited (and sent) as access_request.expired. */
export async function expireAccessRequests(at = new Date()): Promise<number> {
  return db()
    .transaction()
    .execute(async (trx) => {
      const ended = await trx
        .updateTable("access_request")
        .set({ status: "expired" })
        .where("status", "=", "pending")
        .where("created_at", "<=", new Date(at.getTime() - PENDING_MS).toISOString())
        .returning(["id", "user_id", "role_id", "team_id"])
        .execute();
      for (const r of ended)
        await audit(
          jobOrigin,
          {
            action: "access_request.expired",
            target: { type: "access_request", id: r.id },
            details: { requester: r.user_id, role: r.role_id, team: r.team_id },
          },
          trx,
        );
      return ended.length;
    });
}
