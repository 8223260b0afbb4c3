import type { i18n as I18n } from "i18next";
import type { Selectable } from "kysely";
import type { AuditLogTable } from "../../db/schema";
import { db } from "../db.server";
import { userAgentParts } from "../http/user-agent";
import { i18nFor } from "../i18n/i18n.server";
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

/** "defaultRoleId" → "Default role id": a key from an older release that has no words yet. */
function humanised(key: string) {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase()
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A field in the reader's language (audit:field.<key>); a setting by its label on the System page. */
function fieldLabel(lang: I18n, key: string) {
  const own = `audit:field.${key}`;
  if (lang.exists(own)) return lang.t(own);
  const setting = `settings:system.config.${key}.label`;
  if (/^[A-Z][A-Z0-9_]+$/.test(key) && lang.exists(setting)) return lang.t(setting);
  return humanised(key);
}

/** Keys whose value is a role's id or name, a person's id, or a team's id. */
const ROLE_KEYS = new Set(["roles", "roleId", "defaultRoleId", "role"]);
const USER_KEYS = new Set(["user", "invitedBy", "by", "owner"]);
const TEAM_KEYS = new Set(["team", "teamId", "teams"]);

type Names = { user: Map<string, string>; team: Map<string, string>; role: Map<string, string> };
type Ids = { roles: Set<string>; users: Set<string>; teams: Set<string> };

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

function collectIds(value: unknown, out: Ids) {
  if (Array.isArray(value)) {
    for (const item of value) collectIds(item, out);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, v] of Object.entries(value)) {
    const strings = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
    if (ROLE_KEYS.has(key)) for (const r of strings) out.roles.add(r);
    if (USER_KEYS.has(key)) for (const u of strings) out.users.add(u);
    if (TEAM_KEYS.has(key)) for (const team of strings) out.teams.add(team);
    if (isRecord(v) || Array.isArray(v)) collectIds(v, out);
  }
}

/**
 * Roles by id and by name, as the reader says them: the caller passes them (the access domain sits
 * above this module and translates seeded roles); without them, the labels as stored.
 */
export type RoleNames = ReadonlyMap<string, string>;

async function storedRoleNames(): Promise<RoleNames> {
  const rows = await db().selectFrom("role").select(["id", "name", "label"]).execute();
  return new Map(rows.flatMap((r) => [[r.id, r.label] as const, [r.name, r.label] as const]));
}

/** One query for people and teams whatever the page size; roles from `roles`. */
async function loadNames(ids: Ids, roles: RoleNames | undefined): Promise<Names> {
  const names: Names = { user: new Map(), team: new Map(), role: new Map() };
  if (ids.roles.size) {
    const known = roles ?? (await storedRoleNames());
    for (const id of ids.roles) {
      const label = known.get(id);
      if (label !== undefined) names.role.set(id, label);
    }
  }
  const users = [...ids.users];
  const teams = [...ids.teams];
  if (!users.length && !teams.length) return names;
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
    .execute();
  for (const row of rows) names[row.kind as "user" | "team"].set(String(row.key), String(row.name));
  return names;
}

/** A value in words: names for ids, yes and no, a list joined, an object as "field: value" pairs. */
function words(lang: I18n, key: string, value: unknown, names: Names): string {
  if (value === null || value === undefined || value === "") return "—";
  const named = (map: Map<string, string>) => (v: unknown) => map.get(String(v)) ?? String(v);
  const one = ROLE_KEYS.has(key)
    ? named(names.role)
    : USER_KEYS.has(key)
      ? named(names.user)
      : TEAM_KEYS.has(key)
        ? named(names.team)
        : key === "changedKeys"
          ? (v: unknown) => fieldLabel(lang, String(v))
          : null;
  if (Array.isArray(value)) {
    if (!value.length) return lang.t("audit:value.none");
    return value.map((v) => (one && typeof v === "string" ? one(v) : words(lang, "", v, names))).join(", ");
  }
  if (one && typeof value === "string") return one(value);
  if (typeof value === "boolean") return value ? lang.t("audit:value.yes") : lang.t("audit:value.no");
  if (isRecord(value))
    return Object.entries(value)
      .map(([k, v]) => `${fieldLabel(lang, k)}: ${words(lang, k, v, names)}`)
      .join("; ");
  return String(value);
}

type Change = { key: string; field: string; before: string; after: string; changed: boolean };

function change(lang: I18n, key: string, before: unknown, after: unknown, names: Names): Change {
  const was = words(lang, key, before, names);
  const now = words(lang, key, after, names);
  return { key, field: fieldLabel(lang, key), before: was, after: now, changed: was !== now };
}

/** Settings record each changed setting as { before, after, source }: rows of the diff, by label. */
function settingChanges(lang: I18n, value: unknown, names: Names): Change[] | null {
  if (!isRecord(value)) return null;
  const entries = Object.entries(value);
  if (!entries.every(([, v]) => isRecord(v) && "before" in v && "after" in v)) return null;
  return entries.map(([key, v]) =>
    change(lang, key, (v as Record<string, unknown>).before, (v as Record<string, unknown>).after, names),
  );
}

function describeDetails(lang: I18n, raw: unknown, names: Names): AuditDetails {
  if (raw === null) return null;
  if (!isRecord(raw)) return { kind: "text", text: String(raw) };
  const { before, after, changes: recorded, ...rest } = raw;
  const settings = settingChanges(lang, recorded, names);
  const facts = Object.entries(settings ? rest : { ...rest, changes: recorded })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ({ field: fieldLabel(lang, k), value: words(lang, k, v, names) }));
  if (!isRecord(before) && !isRecord(after) && !settings) return { kind: "facts", facts };
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  const changes = [...keys.map((k) => change(lang, k, b[k], a[k], names)), ...(settings ?? [])];
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
export async function auditRowNames(rows: AuditRow[], roleNames?: RoleNames) {
  const users = new Set<string>();
  const teams = new Set<string>();
  const roles = new Set<string>();
  for (const r of rows) {
    if (r.actor_id) users.add(r.actor_id);
    if (r.target_id && r.target_type === "user") users.add(r.target_id);
    if (r.target_id && r.target_type === "team") teams.add(r.target_id);
    if (r.target_id && r.target_type === "role") roles.add(r.target_id);
  }
  const names = await loadNames({ users, teams, roles }, roleNames);
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

/**
 * The caller passes the rows as the viewer may read them (access/audit-token-names.server.ts), and
 * the reader's `t`: details are words in their language, names in place of ids.
 */
export async function describeAuditRows(
  rows: AuditRow[],
  lang: I18n = i18nFor("en"),
  roleNames?: RoleNames,
): Promise<AuditView[]> {
  const parsed = rows.map((r) => parseDetails(r.details));
  const ids: Ids = { users: new Set<string>(), teams: new Set<string>(), roles: new Set<string>() };
  rows.forEach((r, i) => {
    if (r.actor_id) ids.users.add(r.actor_id);
    if (r.impersonator_id) ids.users.add(r.impersonator_id);
    if (r.target_id && r.target_type === "user") ids.users.add(r.target_id);
    if (r.target_id && r.target_type === "team") ids.teams.add(r.target_id);
    if (r.target_id && r.target_type === "role") ids.roles.add(r.target_id);
    collectIds(parsed[i], ids);
  });
  const names = await loadNames(ids, roleNames);
  return rows.map((r, i) => {
    const details = describeDetails(lang, parsed[i], names);
    const onlyRoles =
      r.action === "user.update" &&
      details?.kind === "diff" &&
      details.changes.filter((c) => c.changed).every((c) => c.key === "roles") &&
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
