import { randomUUID } from "node:crypto";
import { mayManageUser } from "../access/rules.server";
import { audit } from "../audit/audit.server";
import { isUnproven, takeOverUnproven } from "../auth/account-takeover.server";
import { revokeAllApiTokens } from "../auth/api-tokens.server";
import { sendPasswordSetup } from "../auth/password-reset.server";
import { invalidateSessions } from "../auth/session.server";
import { deleteSessions, recheckViews, sessionsEnded } from "../auth/session-end.server";
import { spendTokens } from "../auth/tokens.server";
import { db, type Executor, now } from "../db.server";
import { emailField } from "../email-address";
import { closeStreamsOf } from "../events/stream.server";
import { groupsOf, syncRoles, syncTeam } from "./membership.server";
import { ScimError } from "./scim-error";
import { type FilterAttributes, filterCondition } from "./scim-filter.server";
import { applyPatch, listPage, type Page, readPage, versionOf } from "./scim-resource";
import { SCIM, type ScimPatchInput, type ScimUserInput, scimUserInput } from "./scim-schema";
import { emailDomain, type ScimContext, visibleTo } from "./scope.server";

// SCIM Users (RFC 7643 §4.1); userName is the email address. Disabling or deleting cuts off the person at once.

const ATTRIBUTES: FilterAttributes = {
  id: { kind: "text", column: "user.id", caseExact: true },
  // Stored lower-case, so Okta's lookup before every create is one read of the email index.
  username: { kind: "text", column: "user.email", storedLower: true },
  emails: { kind: "text", column: "user.email", storedLower: true },
  "emails.value": { kind: "text", column: "user.email", storedLower: true },
  externalid: { kind: "text", column: "user.external_id", caseExact: true },
  displayname: { kind: "text", column: "user.name" },
  "name.formatted": { kind: "text", column: "user.name" },
  active: { kind: "status", column: "user.status" },
  "meta.created": { kind: "time", column: "user.created_at" },
  "meta.lastmodified": { kind: "time", column: "user.updated_at" },
  [`${SCIM.enterprise}:department`.toLowerCase()]: { kind: "text", column: "user.department" },
};

const COLUMNS = [
  "user.id",
  "user.name",
  "user.email",
  "user.status",
  "user.external_id",
  "user.department",
  "user.directory_id",
  "user.created_at",
  "user.updated_at",
] as const;

type UserRow = {
  id: string;
  name: string;
  email: string;
  status: "active" | "disabled";
  external_id: string | null;
  department: string | null;
  directory_id: string | null;
  created_at: string;
  updated_at: string;
};

type Account = {
  name: string;
  email: string;
  externalId: string | null;
  department: string | null;
  /** Null: a new account is active, an existing one stays as it is. */
  active: boolean | null;
};

function resource(ctx: ScimContext, row: UserRow, groups: { id: string; display_name: string }[]) {
  const body = {
    schemas: [SCIM.user, ...(row.department ? [SCIM.enterprise] : [])],
    id: row.id,
    externalId: row.external_id ?? undefined,
    userName: row.email,
    name: { formatted: row.name },
    displayName: row.name,
    emails: [{ value: row.email, type: "work", primary: true }],
    active: row.status === "active",
    groups: groups.map((g) => ({
      value: g.id,
      display: g.display_name,
      $ref: `${ctx.baseUrl}/Groups/${g.id}`,
    })),
    ...(row.department ? { [SCIM.enterprise]: { department: row.department } } : {}),
  };
  return {
    ...body,
    meta: {
      resourceType: "User",
      created: row.created_at,
      lastModified: row.updated_at,
      location: `${ctx.baseUrl}/Users/${row.id}`,
      version: versionOf(body),
    },
  };
}
export type UserResource = ReturnType<typeof resource>;

async function groupsByUser(ctx: ScimContext, userIds: string[]) {
  const map = new Map<string, { id: string; display_name: string }[]>();
  if (userIds.length === 0) return map;
  const rows = await db()
    .selectFrom("directory_group_member as m")
    .innerJoin("directory_group as g", "g.id", "m.group_id")
    .select(["m.user_id", "g.id", "g.display_name"])
    .where("g.directory_id", "=", ctx.directory.id)
    .where("m.user_id", "in", userIds)
    .orderBy("g.display_name")
    .execute();
  for (const r of rows) map.set(r.user_id, [...(map.get(r.user_id) ?? []), r]);
  return map;
}

async function visibleRow(ctx: ScimContext, id: string): Promise<UserRow> {
  if (id.length > 64) throw new ScimError(404, "No such user.");
  const row = await db()
    .selectFrom("user")
    .select(COLUMNS)
    .where("user.id", "=", id)
    .where(await visibleTo(ctx.directory))
    .executeTakeFirst();
  if (!row) throw new ScimError(404, "No such user.");
  return row;
}

export async function getScimUser(ctx: ScimContext, id: string): Promise<UserResource> {
  const row = await visibleRow(ctx, id);
  return resource(ctx, row, (await groupsByUser(ctx, [id])).get(id) ?? []);
}

export async function listScimUsers(ctx: ScimContext, page: Page, filter: string | null) {
  let q = db()
    .selectFrom("user")
    .where(await visibleTo(ctx.directory));
  if (filter) q = q.where(filterCondition(filter, ATTRIBUTES));
  const { total, rows } = await readPage(
    page,
    () => q.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
    (limit, offset) =>
      q.select(COLUMNS).orderBy("user.created_at").orderBy("user.id").limit(limit).offset(offset).execute(),
  );
  const groups = await groupsByUser(
    ctx,
    rows.map((r) => r.id),
  );
  return listPage(
    rows.map((r) => resource(ctx, r, groups.get(r.id) ?? [])),
    total,
    page,
  );
}

function accountOf(input: ScimUserInput): Account {
  const email = emailField.safeParse(input.userName);
  if (!email.success)
    throw new ScimError(400, "userName must be the person's email address.", "invalidValue");
  const joined = [input.name?.givenName, input.name?.familyName].filter(Boolean).join(" ");
  const name = input.displayName || input.name?.formatted || joined || email.data.split("@")[0]!;
  return {
    name: name.slice(0, 120),
    email: email.data,
    externalId: input.externalId ?? null,
    department: input[SCIM.enterprise]?.department ?? null,
    active: input.active ?? null,
  };
}

function assertDomain(ctx: ScimContext, email: string) {
  if (!ctx.directory.domains.includes(emailDomain(email)))
    throw new ScimError(403, `${emailDomain(email)} is not one of this directory's domains.`);
}

async function assertManageable(ctx: ScimContext, id: string) {
  if (!(await mayManageUser(ctx.actor, id)))
    throw new ScimError(403, "This account holds a role beyond the ones this directory gives.");
}

function parseUser(body: unknown): ScimUserInput {
  const parsed = scimUserInput.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ScimError(400, `${issue.path.join(".") || "body"}: ${issue.message}`, "invalidValue");
}

/** A directory re-provisioning someone it deleted gets the same account back. */
export async function createScimUser(ctx: ScimContext, body: unknown): Promise<UserResource> {
  const account = accountOf(parseUser(body));
  assertDomain(ctx, account.email);
  const existing = await db()
    .selectFrom("user")
    .select(["id", "directory_id", "directory_deleted_at"])
    .where("email", "=", account.email)
    .executeTakeFirst();
  if (existing) {
    if (existing.directory_id === ctx.directory.id && existing.directory_deleted_at) {
      await writeAccount(ctx, existing.id, { ...account, active: account.active ?? true }, { revive: true });
      if (ctx.directory.sendPasswordLink && account.active !== false)
        await sendPasswordSetup(ctx.origin, { id: existing.id, email: account.email }, ctx.directory.name);
      return getScimUser(ctx, existing.id);
    }
    throw new ScimError(409, "An account with this userName already exists.", "uniqueness");
  }
  const id = randomUUID();
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("user")
        .values({
          id,
          name: account.name,
          email: account.email,
          email_verified: 1,
          password_hash: null,
          status: account.active === false ? "disabled" : "active",
          directory_id: ctx.directory.id,
          external_id: account.externalId,
          department: account.department,
          created_at: ts,
          updated_at: ts,
        })
        .execute();
      await audit(
        ctx.origin,
        {
          action: "user.create",
          actor: { id: null, email: ctx.actor.email },
          target: { type: "user", id },
          details: { after: { name: account.name, email: account.email, active: account.active !== false } },
        },
        trx,
      );
      await syncRoles(trx, ctx, [id]);
    });
  await invalidateSessions();
  if (ctx.directory.sendPasswordLink && account.active !== false)
    await sendPasswordSetup(ctx.origin, { id, email: account.email }, ctx.directory.name);
  return getScimUser(ctx, id);
}

export async function replaceScimUser(ctx: ScimContext, id: string, body: unknown, ifMatch: string | null) {
  const current = await getScimUser(ctx, id);
  assertVersion(current.meta.version, ifMatch);
  await writeAccount(ctx, id, accountOf(parseUser(body)));
  return getScimUser(ctx, id);
}

/** As Okta and Microsoft Entra ID send it ("Replace", string booleans, no path). */
export async function patchScimUser(
  ctx: ScimContext,
  id: string,
  patch: ScimPatchInput,
  ifMatch: string | null,
) {
  const current = await getScimUser(ctx, id);
  assertVersion(current.meta.version, ifMatch);
  const patched = applyPatch(current, patch);
  const input = parseUser(patched);
  // Entra changes given and family names alone: the account's name follows unless the display name changed too.
  if (input.displayName === current.displayName && input.name?.formatted === current.name.formatted) {
    const joined = [input.name?.givenName, input.name?.familyName].filter(Boolean).join(" ");
    if (joined) input.displayName = joined;
  }
  await writeAccount(ctx, id, accountOf(input));
  return getScimUser(ctx, id);
}

export function assertVersion(version: string, ifMatch: string | null) {
  if (ifMatch && ifMatch !== "*" && !ifMatch.split(",").some((v) => v.trim() === version))
    throw new ScimError(412, "The resource changed since this version was read.");
}

/** The account is disabled and leaves the directory's view; its history stays. */
export async function deleteScimUser(ctx: ScimContext, id: string) {
  const row = await visibleRow(ctx, id);
  await assertManageable(ctx, id);
  const ended = await db()
    .transaction()
    .execute(async (trx) => {
      const groups = await groupsOf(trx, ctx, id);
      await trx
        .deleteFrom("directory_group_member")
        .where("user_id", "=", id)
        .where("group_id", "in", (eb) =>
          eb.selectFrom("directory_group").select("id").where("directory_id", "=", ctx.directory.id),
        )
        .execute();
      await trx
        .updateTable("user")
        .set({
          status: "disabled",
          directory_id: ctx.directory.id,
          directory_deleted_at: now(),
          updated_at: now(),
        })
        .where("id", "=", id)
        .execute();
      for (const group of groups) await syncTeam(trx, ctx, group);
      await audit(
        ctx.origin,
        {
          action: row.status === "active" ? "user.disable" : "user.update",
          actor: { id: null, email: ctx.actor.email },
          target: { type: "user", id },
          details: {
            before: { status: row.status },
            after: { status: "disabled", deletedByDirectory: true },
          },
        },
        trx,
      );
      return cutOff(trx, id);
    });
  await afterCutOff(id, ended);
}

async function cutOff(trx: Executor, id: string) {
  await revokeAllApiTokens(id, trx);
  return deleteSessions(trx, { userId: id });
}

async function afterCutOff(id: string, endedSessions: string[]) {
  await sessionsEnded(endedSessions);
  closeStreamsOf(id);
  await recheckViews(id);
}

async function writeAccount(ctx: ScimContext, id: string, account: Account, opts: { revive?: boolean } = {}) {
  const before = await db()
    .selectFrom("user")
    .select([...COLUMNS, "user.email_verified", "user.pending_registration"])
    .where("user.id", "=", id)
    .executeTakeFirstOrThrow();
  // Nothing an earlier holder of the address set survives (account-takeover).
  const takeOver = opts.revive || isUnproven(before);
  await assertManageable(ctx, id);
  if (account.email !== before.email) {
    assertDomain(ctx, account.email);
    const taken = await db()
      .selectFrom("user")
      .select("id")
      .where("email", "=", account.email)
      .where("id", "!=", id)
      .executeTakeFirst();
    if (taken) throw new ScimError(409, "An account with this userName already exists.", "uniqueness");
  }
  const status = account.active === null ? before.status : account.active ? "active" : "disabled";
  const actor = { id: null, email: ctx.actor.email };
  const target = { type: "user", id };
  const ended = await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("user")
        .set({
          name: account.name,
          email: account.email,
          email_verified: 1,
          status,
          external_id: account.externalId,
          department: account.department,
          directory_id: ctx.directory.id,
          directory_deleted_at: null,
          updated_at: now(),
        })
        .where("id", "=", id)
        .execute();
      // Links mailed to the old address must not work once the address changed.
      if (account.email !== before.email)
        for (const kind of ["reset-password", "set-password", "verify-email", "email-change"] as const)
          await spendTokens(id, kind, trx);
      const takenOver = takeOver
        ? await takeOverUnproven(trx, ctx.origin, id, {
            kind: "directory",
            actor,
            name: ctx.directory.name,
            restored: opts.revive,
          })
        : [];
      const was = {
        name: before.name,
        email: before.email,
        externalId: before.external_id,
        department: before.department,
      };
      const is = {
        name: account.name,
        email: account.email,
        externalId: account.externalId,
        department: account.department,
      };
      if (
        JSON.stringify(was) !== JSON.stringify(is) ||
        before.directory_id !== ctx.directory.id ||
        opts.revive
      )
        await audit(
          ctx.origin,
          {
            action: "user.update",
            actor,
            target,
            details: { before: was, after: is, ...(opts.revive ? { restored: true } : {}) },
          },
          trx,
        );
      if (status !== before.status)
        await audit(
          ctx.origin,
          {
            action: status === "disabled" ? "user.disable" : "user.enable",
            actor,
            target,
            details: { before: { status: before.status }, after: { status } },
          },
          trx,
        );
      await syncRoles(trx, ctx, [id]);
      for (const group of await groupsOf(trx, ctx, id)) await syncTeam(trx, ctx, group);
      const cut = status === "disabled" && before.status === "active" ? await cutOff(trx, id) : [];
      return [...takenOver, ...cut];
    });
  if (ended.length > 0 || takeOver) await afterCutOff(id, ended);
  else {
    await invalidateSessions();
    await recheckViews(id);
  }
}
