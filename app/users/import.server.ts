import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { can } from "../access/check";
import { liveGlobal } from "../access/grant-rows.server";
import { roleGrants } from "../access/role-cache.server";
import { DEFAULT_ROLE_FOR_NEW_USERS } from "../access/roles";
import { assignableRoles, manageableUsers } from "../access/rules.server";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { afterTakeOver, isUnproven, takeOverUnproven } from "../auth/account-takeover.server";
import { sendPasswordSetup } from "../auth/password-reset.server";
import { invalidateSessions } from "../auth/session.server";
import { recheckViews } from "../auth/session-end.server";
import { db, type Executor, now } from "../db.server";
import { emailField } from "../email-address";
import type { Message } from "../i18n/message";
import type { ImportRow } from "./import-csv";

// Users → Import (decision 034): one planner for the preview and the run, which plans each row
// again, so the preview says what the run will do.

type Outcome = "create" | "update" | "skip" | "error";

/** What an update changes, for the preview to say as before → after. */
export type ImportChange =
  | { field: "name"; before: string; after: string }
  | { field: "roles"; before: string[]; after: string[] }
  | { field: "teams"; added: string[] }
  | { field: "verified" };

export type RowPlan = {
  line: number;
  email: string;
  outcome: Outcome;
  message: Message;
  changes?: ImportChange[];
  apply?: {
    userId: string | null;
    name: string;
    roleIds: string[] | null;
    addTeamIds: string[];
    /** An existing account whose address nobody proved: the import vouches for it. */
    takeOver?: boolean;
  };
};

type Existing = {
  id: string;
  name: string;
  managedBy: string | null;
  roleIds: string[];
  teamIds: string[];
  unproven: boolean;
};

type Context = {
  actor: AuditedActor;
  rolesByName: Map<string, { id: string; label: string; all: boolean }>;
  grantable: Set<string>;
  teamsByName: Map<string, string>;
  existing: Map<string, Existing>;
  manageable: Set<string>;
  defaultRoleId: string | null;
};

const CHUNK = 500;
const BATCH = 100;
const FORMULA = /^[=+\-@\t\r]/;

async function inChunks<T, R>(items: T[], read: (part: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(...(await read(items.slice(i, i + CHUNK))));
  return out;
}

/** A few queries whatever the number of rows. */
async function contextFor(
  actor: AuditedActor,
  rows: ImportRow[],
  executor: Executor = db(),
): Promise<Context> {
  const grants = await roleGrants();
  const rolesByName = new Map<string, { id: string; label: string; all: boolean }>();
  for (const g of grants.values()) rolesByName.set(g.label.toLowerCase(), g);
  for (const g of grants.values()) rolesByName.set(g.name.toLowerCase(), g);
  const grantable = new Set((await assignableRoles(actor)).map((r) => r.id));
  const teamNames = [...new Set(rows.flatMap((r) => r.teams))];
  const teams = await inChunks(teamNames, (part) =>
    executor.selectFrom("team").select(["id", "name"]).where("name", "in", part).execute(),
  );
  const emails = [
    ...new Set(rows.map((r) => emailField.safeParse(r.email)).flatMap((p) => (p.success ? [p.data] : []))),
  ];
  const users = await inChunks(emails, (part) =>
    executor
      .selectFrom("user")
      .leftJoin("directory", "directory.id", "user.directory_id")
      .select(["user.id", "user.email", "user.name", "directory.name as managedBy"])
      .select(["user.email_verified", "user.pending_registration"])
      .where("user.email", "in", part)
      .execute(),
  );
  const ids = users.map((u) => u.id);
  const [roleLinks, teamLinks, manageable] = await Promise.all([
    inChunks(ids, (part) =>
      executor
        .selectFrom("user_role")
        .select(["user_id", "role_id"])
        .where("user_id", "in", part)
        .where(liveGlobal)
        .execute(),
    ),
    inChunks(ids, (part) =>
      executor
        .selectFrom("team_member")
        .select(["user_id", "team_id"])
        .where("user_id", "in", part)
        .execute(),
    ),
    manageableUsers(actor, ids),
  ]);
  const existing = new Map<string, Existing>();
  for (const u of users)
    existing.set(u.email, {
      id: u.id,
      name: u.name,
      managedBy: u.managedBy,
      unproven: isUnproven(u),
      roleIds: roleLinks.filter((l) => l.user_id === u.id).map((l) => l.role_id),
      teamIds: teamLinks.filter((l) => l.user_id === u.id).map((l) => l.team_id),
    });
  return {
    actor,
    rolesByName,
    grantable,
    teamsByName: new Map(teams.map((t) => [t.name.toLowerCase(), t.id])),
    existing,
    manageable,
    defaultRoleId: rolesByName.get(DEFAULT_ROLE_FOR_NEW_USERS)?.id ?? null,
  };
}

const refuse = (row: ImportRow, email: string, message: Message): RowPlan => ({
  line: row.line,
  email,
  outcome: "error",
  message,
});

function planRow(row: ImportRow, ctx: Context, seen: Map<string, number>): RowPlan {
  const parsed = emailField.safeParse(row.email);
  if (!parsed.success)
    return refuse(row, row.email, { key: "users.import.badEmail", values: { email: row.email } });
  const email = parsed.data;
  const first = seen.get(email);
  if (first !== undefined)
    return refuse(row, email, { key: "users.import.duplicate", values: { line: first } });
  seen.set(email, row.line);
  if (FORMULA.test(row.name))
    return refuse(row, email, { key: "users.import.formula", values: { char: JSON.stringify(row.name[0]) } });
  if (row.name.length > 120) return refuse(row, email, { key: "users.import.longName" });

  const roleIds: string[] = [];
  for (const name of row.roles) {
    const role = ctx.rolesByName.get(name.toLowerCase());
    if (!role) return refuse(row, email, { key: "users.import.unknownRole", values: { role: name } });
    if (!ctx.grantable.has(role.id))
      return refuse(row, email, { key: "users.import.roleNotAllowed", values: { role: role.label } });
    roleIds.push(role.id);
  }
  const teamIds: string[] = [];
  const teamNames = new Map<string, string>();
  for (const name of row.teams) {
    const id = ctx.teamsByName.get(name.toLowerCase());
    if (!id) return refuse(row, email, { key: "users.import.unknownTeam", values: { team: name } });
    teamIds.push(id);
    teamNames.set(id, name);
  }
  if (teamIds.length && !can(ctx.actor, "team.write"))
    return refuse(row, email, { key: "users.import.teamsNotAllowed" });

  const user = ctx.existing.get(email);
  if (!user) {
    if (!row.name) return refuse(row, email, { key: "users.import.noName" });
    return {
      line: row.line,
      email,
      outcome: "create",
      message: { key: "users.import.created" },
      apply: {
        userId: null,
        name: row.name,
        roleIds: roleIds.length ? roleIds : ctx.defaultRoleId ? [ctx.defaultRoleId] : [],
        addTeamIds: teamIds,
      },
    };
  }
  if (user.managedBy)
    return refuse(row, email, { key: "users.import.managed", values: { directory: user.managedBy } });
  if (!can(ctx.actor, "user.update")) return refuse(row, email, { key: "users.import.updateNotAllowed" });
  if (!ctx.manageable.has(user.id) || user.id === ctx.actor.id)
    return refuse(row, email, { key: "users.import.notManageable" });
  const changes: string[] = [];
  const said: ImportChange[] = [];
  const name = row.name || user.name;
  if (name !== user.name) {
    changes.push("name");
    said.push({ field: "name", before: user.name, after: name });
  }
  const sameRoles =
    roleIds.length === 0 ||
    (roleIds.length === user.roleIds.length && roleIds.every((r) => user.roleIds.includes(r)));
  // Replacing roles removes some: those must be grantable too.
  if (!sameRoles) {
    const removed = user.roleIds.find((r) => !roleIds.includes(r) && !ctx.grantable.has(r));
    if (removed) return refuse(row, email, { key: "users.import.notManageable" });
    changes.push("roles");
    said.push({ field: "roles", before: user.roleIds, after: roleIds });
  }
  const addTeamIds = teamIds.filter((t) => !user.teamIds.includes(t));
  if (addTeamIds.length) {
    changes.push("teams");
    said.push({ field: "teams", added: addTeamIds.map((id) => teamNames.get(id) ?? id) });
  }
  // The file vouches for the address: whoever registered it first and never proved it loses what they set.
  if (user.unproven) {
    changes.push("verified");
    said.push({ field: "verified" });
  }
  if (changes.length === 0)
    return { line: row.line, email, outcome: "skip", message: { key: "users.import.unchanged" } };
  return {
    line: row.line,
    email,
    outcome: "update",
    message: { key: "users.import.updated", values: { changes: changes.join(", ") } },
    changes: said,
    apply: {
      userId: user.id,
      name,
      roleIds: sameRoles ? null : roleIds,
      addTeamIds,
      takeOver: user.unproven,
    },
  };
}

export async function planImport(actor: AuditedActor, rows: ImportRow[]): Promise<RowPlan[]> {
  const ctx = await contextFor(actor, rows);
  const seen = new Map<string, number>();
  return rows.map((row) => planRow(row, ctx, seen));
}

export type ImportSummary = Record<Outcome, number>;

export function summarise(plans: RowPlan[]): ImportSummary {
  const out: ImportSummary = { create: 0, update: 0, skip: 0, error: 0 };
  for (const p of plans) out[p.outcome]++;
  return out;
}

async function applyRow(
  trx: Executor,
  actor: AuditedActor,
  plan: RowPlan,
  origin: AuditOrigin,
): Promise<{ id: string; ended: string[] }> {
  const apply = plan.apply!;
  const id = apply.userId ?? randomUUID();
  const ts = now();
  let ended: string[] = [];
  if (!apply.userId) {
    await trx
      .insertInto("user")
      .values({
        id,
        name: apply.name,
        email: plan.email,
        email_verified: 1,
        password_hash: null,
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    if (apply.roleIds?.length)
      await trx
        .insertInto("user_role")
        .values(apply.roleIds.map((role_id) => ({ user_id: id, role_id })))
        .execute();
    await audit(
      origin,
      {
        action: "user.create",
        actor,
        target: { type: "user", id },
        details: {
          after: { name: apply.name, email: plan.email, roles: apply.roleIds },
          import: { line: plan.line },
        },
      },
      trx,
    );
  } else {
    const before = await trx.selectFrom("user").select("name").where("id", "=", id).executeTakeFirstOrThrow();
    const beforeRoles = (
      await trx
        .selectFrom("user_role")
        .select("role_id")
        .where("user_id", "=", id)
        .where(liveGlobal)
        .execute()
    ).map((r) => r.role_id);
    await trx.updateTable("user").set({ name: apply.name, updated_at: ts }).where("id", "=", id).execute();
    if (apply.takeOver) ended = await takeOverUnproven(trx, origin, id, { kind: "import", actor });
    if (apply.roleIds) {
      // A file sets global roles; grants within a team are the team page's.
      await trx.deleteFrom("user_role").where("user_id", "=", id).where("team_id", "is", null).execute();
      if (apply.roleIds.length)
        await trx
          .insertInto("user_role")
          .values(apply.roleIds.map((role_id) => ({ user_id: id, role_id })))
          .execute();
    }
    if (before.name !== apply.name || apply.roleIds)
      await audit(
        origin,
        {
          action: "user.update",
          actor,
          target: { type: "user", id },
          details: {
            before: { name: before.name, roles: beforeRoles },
            after: { name: apply.name, roles: apply.roleIds ?? beforeRoles },
            import: { line: plan.line },
          },
        },
        trx,
      );
  }
  for (const teamId of apply.addTeamIds) {
    await trx
      .insertInto("team_member")
      .values({ team_id: teamId, user_id: id, team_role: "member", created_at: ts })
      .execute();
    await audit(
      origin,
      {
        action: "team.member.add",
        actor,
        target: { type: "team", id: teamId },
        details: { user: id, after: { team_role: "member" }, import: { line: plan.line } },
      },
      trx,
    );
  }
  return { id, ended };
}

/** A row the database refuses changes nothing; the transaction goes on. */
async function alone<T>(
  trx: Executor,
  write: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: Error }> {
  await sql`savepoint import_row`.execute(trx);
  try {
    const value = await write();
    await sql`release savepoint import_row`.execute(trx);
    return { ok: true, value };
  } catch (error) {
    await sql`rollback to savepoint import_row`.execute(trx);
    return { ok: false, error: error as Error };
  }
}

export type RowResult = { line: number; email: string; outcome: Outcome; message: Message };

export async function runImport(
  actor: AuditedActor & { name: string },
  rows: ImportRow[],
  opts: { invite: boolean; origin: AuditOrigin; signal?: AbortSignal; progress?: (done: number) => void },
): Promise<RowResult[]> {
  const results: RowResult[] = [];
  const seen = new Map<string, number>();
  let rolesChanged = false;
  try {
    for (let i = 0; i < rows.length; i += BATCH) {
      opts.signal?.throwIfAborted();
      const part = rows.slice(i, i + BATCH);
      // Not inside the transaction: the access rules read through their own connection (SQLite has one).
      // A batch is one transaction, as a commit per row was far slower on PostgreSQL.
      const ctx = await contextFor(actor, part);
      const invites: { id: string; email: string; at: number }[] = [];
      const takenOver: { id: string; ended: string[] }[] = [];
      await db()
        .transaction()
        .execute(async (trx) => {
          for (const row of part) {
            const plan = planRow(row, ctx, seen);
            if (!plan.apply) {
              results.push({
                line: plan.line,
                email: plan.email,
                outcome: plan.outcome,
                message: plan.message,
              });
              continue;
            }
            const written = await alone(trx, () => applyRow(trx, actor, plan, opts.origin));
            if (!written.ok) {
              results.push({
                line: plan.line,
                email: plan.email,
                outcome: "error",
                message: {
                  key: "users.import.changed",
                  values: { reason: written.error.message.slice(0, 200) },
                },
              });
              continue;
            }
            if (plan.apply.userId && plan.apply.roleIds) rolesChanged = true;
            if (plan.apply.takeOver) takenOver.push(written.value);
            // A taken-over account has no password left either: it is invited like a new one.
            if ((!plan.apply.userId || plan.apply.takeOver) && opts.invite)
              invites.push({ id: written.value.id, email: plan.email, at: results.length });
            results.push({
              line: plan.line,
              email: plan.email,
              outcome: plan.outcome,
              message: plan.message,
            });
          }
        });
      for (const { id, ended } of takenOver) await afterTakeOver(id, ended);
      for (const invite of invites) {
        const sent = await sendPasswordSetup(opts.origin, invite, actor.name);
        results[invite.at]!.message = { key: sent ? "users.import.invited" : "users.import.inviteFailed" };
      }
      opts.progress?.(Math.min(rows.length, i + BATCH));
    }
  } finally {
    // Roles that changed in a committed batch apply at once, even if a later batch stops the run.
    if (rolesChanged) {
      await invalidateSessions();
      await recheckViews();
    }
  }
  return results;
}
