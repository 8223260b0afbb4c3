import type { Selectable } from "kysely";
import type { AuditLogTable } from "../../db/schema";
import { db } from "../db.server";
import { userAgentParts } from "../http/user-agent";
import { actionLabel } from "./actions";
import type { AuditDetails, AuditTarget, AuditView } from "./audit-view";

type AuditRow = Selectable<AuditLogTable>;

const TARGET_TYPE_LABEL: Record<string, string> = {
  user: "User",
  team: "Team",
  role: "Role",
  invitation: "Invitation",
  email: "Email",
  task: "Task",
  broadcast: "Broadcast",
  menu_item: "Menu item",
  permission: "Permissions",
  system_setting: "Setting",
  audit_log: "Audit log",
};

export const targetTypeLabel = (type: string) => TARGET_TYPE_LABEL[type] ?? type;

/** Each has audit:targetType.<type> in every language. */
export const TARGET_TYPES = Object.keys(TARGET_TYPE_LABEL);

const FIELD_LABEL: Record<string, string> = {
  team_role: "Team role",
  invitedBy: "Invited by",
  user: "User",
  roles: "Roles",
  permissions: "Permissions",
};

function fieldLabel(key: string) {
  return FIELD_LABEL[key] ?? key.charAt(0).toUpperCase() + key.slice(1).replace(/[_-]/g, " ");
}

type Names = { user: Map<string, string>; team: Map<string, string>; role: Map<string, string> };

function parseDetails(details: string | null): unknown {
  if (!details) return null;
  try {
    return JSON.parse(details);
  } catch {
    return details;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !Array.isArray(v);

function collectIds(value: unknown, out: { roles: Set<string>; users: Set<string> }) {
  if (!isRecord(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (key === "roles" && Array.isArray(v)) for (const r of v) if (typeof r === "string") out.roles.add(r);
    if ((key === "user" || key === "invitedBy") && typeof v === "string") out.users.add(v);
    if (isRecord(v)) collectIds(v, out);
  }
}

/** One query whatever the page size. */
async function loadNames(ids: {
  users: Set<string>;
  teams: Set<string>;
  roles: Set<string>;
}): Promise<Names> {
  const names: Names = { user: new Map(), team: new Map(), role: new Map() };
  const users = [...ids.users];
  const teams = [...ids.teams];
  const roles = [...ids.roles];
  if (!users.length && !teams.length && !roles.length) return names;
  // An empty IN list is a syntax error on both engines: a never-matching id stands in.
  const list = (values: string[]) => (values.length ? values : [""]);
  const rows = await db()
    .selectFrom("user")
    .select((eb) => [eb.val("user").as("kind"), "user.id as key", "user.name as name"])
    .where("user.id", "in", list(users))
    .unionAll((eb) =>
      eb
        .selectFrom("team")
        .select((t) => [t.val("team").as("kind"), "team.id as key", "team.name as name"])
        .where("team.id", "in", list(teams)),
    )
    .unionAll((eb) =>
      eb
        .selectFrom("role")
        .select((r) => [r.val("role").as("kind"), "role.id as key", "role.label as name"])
        .where("role.id", "in", list(roles)),
    )
    .unionAll((eb) =>
      eb
        .selectFrom("role")
        .select((r) => [r.val("role").as("kind"), "role.name as key", "role.label as name"])
        .where("role.name", "in", list(roles)),
    )
    .execute();
  for (const row of rows) names[row.kind as keyof Names].set(String(row.key), String(row.name));
  return names;
}

function words(key: string, value: unknown, names: Names): string {
  if (value === null || value === undefined || value === "") return "—";
  if (key === "roles" && Array.isArray(value))
    return value.length ? value.map((r) => names.role.get(String(r)) ?? String(r)).join(", ") : "none";
  if ((key === "user" || key === "invitedBy") && typeof value === "string")
    return names.user.get(value) ?? value;
  if (Array.isArray(value)) return value.length ? value.map((v) => words("", v, names)).join(", ") : "none";
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

function describeDetails(raw: unknown, names: Names): AuditDetails {
  if (raw === null) return null;
  if (!isRecord(raw)) return { kind: "text", text: String(raw) };
  const { before, after, ...rest } = raw;
  const facts = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ({ field: fieldLabel(k), value: words(k, v, names) }));
  if (!isRecord(before) && !isRecord(after)) return { kind: "facts", facts };
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  const changes = keys.map((k) => {
    const was = words(k, b[k], names);
    const now = words(k, a[k], names);
    return { field: fieldLabel(k), before: was, after: now, changed: was !== now };
  });
  return { kind: "diff", changes, facts };
}

function describeTarget(row: AuditRow, names: Names): AuditTarget | null {
  if (!row.target_type) return null;
  const id = row.target_id;
  const name =
    id && (row.target_type === "user" || row.target_type === "team" || row.target_type === "role")
      ? (names[row.target_type].get(id) ?? null)
      : null;
  const href =
    name && row.target_type === "user"
      ? `/dashboard/users/${id}`
      : name && row.target_type === "team"
        ? `/dashboard/teams/${id}`
        : null;
  return { type: targetTypeLabel(row.target_type), typeKey: row.target_type, id, name, href };
}

/** The actor's and the user target's current names, for an export's name columns: one query a batch. */
export async function auditRowNames(rows: AuditRow[]) {
  const users = new Set<string>();
  const teams = new Set<string>();
  const roles = new Set<string>();
  for (const r of rows) {
    if (r.actor_id) users.add(r.actor_id);
    if (r.target_id && r.target_type === "user") users.add(r.target_id);
    if (r.target_id && r.target_type === "team") teams.add(r.target_id);
    if (r.target_id && r.target_type === "role") roles.add(r.target_id);
  }
  const names = await loadNames({ users, teams, roles });
  return {
    actor: (r: AuditRow) => (r.actor_id ? (names.user.get(r.actor_id) ?? null) : null),
    target: (r: AuditRow) => describeTarget(r, names)?.name ?? null,
  };
}

/** The person a `person` filter names, as the chip shows them; null once they are deleted. */
export async function auditPerson(id: string) {
  if (!id) return null;
  const row = await db()
    .selectFrom("user")
    .select(["user.id", "user.name", "user.email"])
    .where("user.id", "=", id)
    .executeTakeFirst();
  return row ?? null;
}

/** The caller passes the rows as the viewer may read them (access/audit-token-names.server.ts). */
export async function describeAuditRows(rows: AuditRow[]): Promise<AuditView[]> {
  const parsed = rows.map((r) => parseDetails(r.details));
  const ids = { users: new Set<string>(), teams: new Set<string>(), roles: new Set<string>() };
  rows.forEach((r, i) => {
    if (r.actor_id) ids.users.add(r.actor_id);
    if (r.impersonator_id) ids.users.add(r.impersonator_id);
    if (r.target_id && r.target_type === "user") ids.users.add(r.target_id);
    if (r.target_id && r.target_type === "team") ids.teams.add(r.target_id);
    if (r.target_id && r.target_type === "role") ids.roles.add(r.target_id);
    collectIds(parsed[i], ids);
  });
  const names = await loadNames(ids);
  return rows.map((r, i) => {
    const details = describeDetails(parsed[i], names);
    const onlyRoles =
      r.action === "user.update" &&
      details?.kind === "diff" &&
      details.changes.filter((c) => c.changed).every((c) => c.field === "Roles") &&
      details.changes.some((c) => c.changed);
    return {
      id: r.id,
      createdAt: r.created_at,
      action: r.action,
      actionLabel: onlyRoles ? "Changed roles" : actionLabel(r.action),
      rolesOnly: Boolean(onlyRoles),
      actor: {
        id: r.actor_id,
        email: r.actor_email,
        name: r.actor_id ? (names.user.get(r.actor_id) ?? null) : null,
      },
      impersonator: r.impersonator_id
        ? {
            id: r.impersonator_id,
            email: r.impersonator_email,
            name: names.user.get(r.impersonator_id) ?? null,
          }
        : null,
      target: describeTarget(r, names),
      details,
      ip: r.ip,
      userAgent: r.user_agent,
      device: r.user_agent ? userAgentParts(r.user_agent) : null,
      requestId: r.request_id,
    };
  });
}
