import { randomBytes, randomUUID } from "node:crypto";
import { roleGrants } from "../access/role-cache.server";
import { assignableRoles } from "../access/rules.server";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { hashToken } from "../auth/tokens.server";
import { db, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import type { DirectoryInput } from "./directory-schemas";

// The directories that may provision accounts over SCIM (decision 033).

type GroupRole = { group: string; roleId: string; team: boolean };

export type Directory = {
  id: string;
  name: string;
  domains: string[];
  defaultRoleId: string | null;
  groupRoles: GroupRole[];
  sendPasswordLink: boolean;
};

const TOKEN_PREFIX = "scim_";

type Row = {
  id: string;
  name: string;
  domains: string;
  default_role_id: string | null;
  group_roles: string;
  send_password_link: number;
};

function fromRow(row: Row): Directory {
  return {
    id: row.id,
    name: row.name,
    domains: JSON.parse(row.domains) as string[],
    defaultRoleId: row.default_role_id,
    groupRoles: JSON.parse(row.group_roles) as GroupRole[],
    sendPasswordLink: row.send_password_link === 1,
  };
}

const COLUMNS = ["id", "name", "domains", "default_role_id", "group_roles", "send_password_link"] as const;

function newToken() {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, hash: hashToken(token), hint: token.slice(0, TOKEN_PREFIX.length + 4) };
}

export async function directoryForToken(token: string): Promise<Directory | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const row = await db()
    .selectFrom("directory")
    .select(COLUMNS)
    .where("token_hash", "=", hashToken(token))
    .executeTakeFirst();
  return row ? fromRow(row) : null;
}

/** At most once a minute: every SCIM request would otherwise write. */
export async function noteDirectoryUse(id: string) {
  const cutoff = new Date(Date.now() - 60_000).toISOString();
  await db()
    .updateTable("directory")
    .set({ last_used_at: now() })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", cutoff)]))
    .execute();
}

/** The permissions of the roles it hands out, so it never changes anyone holding more than that. */
export async function directoryActor(directory: Directory): Promise<AuditedActor> {
  const grants = await roleGrants();
  const permissions = new Set<string>();
  for (const id of rolesOf(directory)) for (const p of grants.get(id)?.permissions ?? []) permissions.add(p);
  return { id: `directory:${directory.id}`, email: auditName(directory), isSuperAdmin: false, permissions };
}

function auditName(directory: { name: string }) {
  return `Directory: ${directory.name}`;
}

function rolesOf(directory: Pick<Directory, "defaultRoleId" | "groupRoles">): string[] {
  return [
    ...(directory.defaultRoleId ? [directory.defaultRoleId] : []),
    ...directory.groupRoles.map((g) => g.roleId),
  ];
}

/** Whoever holds its token acts with what it hands out, so the configuring admin must be able to grant it all. */
async function assertRolesGrantable(
  actor: AuditedActor,
  input: Pick<Directory, "defaultRoleId" | "groupRoles">,
) {
  if (input.groupRoles.some((g) => g.team) && !actor.isSuperAdmin && !actor.permissions.has("team.write"))
    throw new RuleViolation("directory.teamsNeedTeamWrite");
  const grantable = new Set((await assignableRoles(actor)).map((r) => r.id));
  const grants = await roleGrants();
  for (const id of rolesOf(input)) {
    const role = grants.get(id);
    if (!role) throw new InvalidInput("validation.rolesFromList", "roles");
    // Never a super admin: the directory would hand out the keys to everything.
    if (role.all) throw new RuleViolation("directory.superAdminRole");
    if (!grantable.has(id)) throw new RuleViolation("access.changeRole", { role: role.label });
  }
}

export type DirectoryView = Directory & {
  tokenHint: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  managedCount: number;
};

export async function listDirectories(): Promise<DirectoryView[]> {
  const rows = await db()
    .selectFrom("directory")
    .select([...COLUMNS, "token_hint", "created_at", "last_used_at"])
    .select((eb) =>
      eb
        .selectFrom("user")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("user.directory_id", "=", "directory.id")
        .where("user.directory_deleted_at", "is", null)
        .as("managed"),
    )
    .orderBy("name")
    .execute();
  return rows.map((r) => ({
    ...fromRow(r),
    tokenHint: r.token_hint,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    managedCount: Number(r.managed ?? 0),
  }));
}

async function getDirectory(id: string): Promise<Directory> {
  const row = await db().selectFrom("directory").select(COLUMNS).where("id", "=", id).executeTakeFirst();
  if (!row) throw new NotFound("directory.notFound");
  return fromRow(row);
}

async function assertNameFree(name: string, exceptId?: string) {
  let q = db().selectFrom("directory").select("id").where("name", "=", name);
  if (exceptId) q = q.where("id", "!=", exceptId);
  if (await q.executeTakeFirst()) throw new InvalidInput("directory.nameTaken", "name");
}

function columnsOf(input: DirectoryInput) {
  return {
    name: input.name,
    domains: JSON.stringify(input.domains),
    default_role_id: input.defaultRoleId,
    group_roles: JSON.stringify(input.groupRoles),
    send_password_link: input.sendPasswordLink ? 1 : 0,
  };
}

/** Its token is returned here only. */
export async function createDirectory(actor: AuditedActor, input: DirectoryInput, origin: AuditOrigin) {
  await assertRolesGrantable(actor, input);
  await assertNameFree(input.name);
  const id = randomUUID();
  const { token, hash, hint } = newToken();
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("directory")
        .values({
          id,
          ...columnsOf(input),
          token_hash: hash,
          token_hint: hint,
          created_by: actor.id,
          created_at: ts,
          updated_at: ts,
        })
        .execute();
      await audit(
        origin,
        { action: "directory.create", actor, target: { type: "directory", id }, details: { after: input } },
        trx,
      );
    });
  return { id, token };
}

export async function updateDirectory(
  actor: AuditedActor,
  id: string,
  input: DirectoryInput,
  origin: AuditOrigin,
) {
  const before = await getDirectory(id);
  await assertRolesGrantable(actor, before);
  await assertRolesGrantable(actor, input);
  await assertNameFree(input.name, id);
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("directory")
        .set({ ...columnsOf(input), updated_at: now() })
        .where("id", "=", id)
        .execute();
      const { id: _, ...was } = before;
      await audit(
        origin,
        {
          action: "directory.update",
          actor,
          target: { type: "directory", id },
          details: { before: was, after: input },
        },
        trx,
      );
    });
}

/** The old token stops working at once; the new one is returned here only. */
export async function rotateDirectoryToken(actor: AuditedActor, id: string, origin: AuditOrigin) {
  await assertRolesGrantable(actor, await getDirectory(id));
  const { token, hash, hint } = newToken();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("directory")
        .set({ token_hash: hash, token_hint: hint, updated_at: now() })
        .where("id", "=", id)
        .execute();
      await audit(
        origin,
        { action: "directory.token.rotate", actor, target: { type: "directory", id } },
        trx,
      );
    });
  return token;
}

/** The accounts it manages stay as they are. */
export async function revokeDirectoryToken(actor: AuditedActor, id: string, origin: AuditOrigin) {
  await assertRolesGrantable(actor, await getDirectory(id));
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("directory")
        .set({ token_hash: null, token_hint: null, updated_at: now() })
        .where("id", "=", id)
        .execute();
      await audit(
        origin,
        { action: "directory.token.revoke", actor, target: { type: "directory", id } },
        trx,
      );
    });
}

/** The accounts it managed stay, with their roles, and become editable again. */
export async function deleteDirectory(actor: AuditedActor, id: string, origin: AuditOrigin) {
  const before = await getDirectory(id);
  await assertRolesGrantable(actor, before);
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("user")
        .set({ directory_id: null, external_id: null, directory_deleted_at: null })
        .where("directory_id", "=", id)
        .execute();
      await trx.deleteFrom("directory").where("id", "=", id).execute();
      await audit(
        origin,
        {
          action: "directory.delete",
          actor,
          target: { type: "directory", id },
          details: { before: { name: before.name, domains: before.domains } },
        },
        trx,
      );
    });
}
