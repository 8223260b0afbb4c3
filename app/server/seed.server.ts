import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { z } from "zod";
import type { Database } from "../../db/schema";
import { MENU_VERSION_KEY, SEED_MENU_ITEMS } from "../access/menu";
import { SYSTEM_ROLES } from "../access/roles";
import { insertMissingPermissions } from "../access/sync.server";
import { newPasswordField } from "../auth/account-schemas";
import { generatePassword, hashPassword } from "../auth/password.server";
import { emailField } from "../email-address";
import { englishIssue } from "../i18n/english.server";

export type SeedEnv = {
  NODE_ENV?: string;
  SUPER_ADMIN_EMAIL?: string;
  SUPER_ADMIN_PASSWORD?: string;
};

export type SeedReport = {
  inserted: { permissions: string[]; roles: string[]; menuItems: string[]; superAdmin: string | null };
  kept: { permissions: string[]; roles: string[]; menuItems: string[]; superAdmin: string | null };
  /** Set only in development when the password was generated; print it once. */
  generatedPassword?: string;
};

export const DEV_SUPER_ADMIN_EMAIL = "admin@localhost.test";

export class SeedConfigError extends Error {}

/** The seeded account follows the same rules as every other one; a bad value stops the seed before any write. */
function checked(name: string, schema: z.ZodType<string>, value: string): string {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new SeedConfigError(`${name} is not valid: ${issue ? englishIssue(issue) : ""} Nothing was written.`);
}

/**
 * Idempotent bootstrap: insert-or-ignore keyed by permission key, role name, menu url and user
 * email, in that order, in one transaction. Existing rows are never updated, and a role's
 * permission links are written only when the role itself is created.
 */
export async function seed(db: Kysely<Database>, env: SeedEnv): Promise<SeedReport> {
  const email = checked(
    "SUPER_ADMIN_EMAIL",
    emailField,
    env.SUPER_ADMIN_EMAIL?.trim() || DEV_SUPER_ADMIN_EMAIL,
  );
  let password = env.SUPER_ADMIN_PASSWORD || undefined;
  let generatedPassword: string | undefined;
  if (password) checked("SUPER_ADMIN_PASSWORD", newPasswordField, password);
  else {
    if (env.NODE_ENV === "production") {
      throw new SeedConfigError(
        "SUPER_ADMIN_PASSWORD must be set to seed in production; nothing was written.",
      );
    }
    generatedPassword = generatePassword();
    password = generatedPassword;
  }
  // Hash outside the transaction: it is slow and touches no table.
  const passwordHash = await hashPassword(password);
  const ts = new Date().toISOString();

  const report: SeedReport = {
    inserted: { permissions: [], roles: [], menuItems: [], superAdmin: null },
    kept: { permissions: [], roles: [], menuItems: [], superAdmin: null },
  };

  await db.transaction().execute(async (trx) => {
    const permissions = await insertMissingPermissions(trx, ts);
    report.inserted.permissions.push(...permissions.inserted);
    report.kept.permissions.push(...permissions.kept);

    const permissionIds = new Map(
      (await trx.selectFrom("permission").select(["id", "key"]).execute()).map((r) => [r.key, r.id]),
    );

    for (const role of SYSTEM_ROLES) {
      const created = await trx
        .insertInto("role")
        .values({
          id: randomUUID(),
          name: role.name,
          label: role.label,
          all_permissions: role.permissions === "*" ? 1 : 0,
          is_system: 1,
          created_at: ts,
          updated_at: ts,
        })
        .onConflict((oc) => oc.column("name").doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!created) {
        report.kept.roles.push(role.name);
        continue;
      }
      report.inserted.roles.push(role.name);
      const links = role.permissions === "*" ? [] : role.permissions;
      if (links.length > 0) {
        await trx
          .insertInto("role_permission")
          .values(links.map((key) => ({ role_id: created.id, permission_id: permissionIds.get(key)! })))
          .onConflict((oc) => oc.columns(["role_id", "permission_id"]).doNothing())
          .execute();
      }
    }

    for (const item of SEED_MENU_ITEMS) {
      const row = await trx
        .insertInto("menu_item")
        .values({
          id: randomUUID(),
          title: item.title,
          url: item.url,
          icon: item.icon,
          required_permission: item.requiredPermission,
          position: item.order,
          created_at: ts,
          updated_at: ts,
        })
        .onConflict((oc) => oc.column("url").doNothing())
        .returning("id")
        .executeTakeFirst();
      (row ? report.inserted : report.kept).menuItems.push(item.url);
    }
    if (report.inserted.menuItems.length > 0) {
      // Running servers cache the menu; a new version tells them to read it again.
      const version = { value: `${ts} ${randomUUID()}`, is_secret: 0, updated_at: ts, updated_by: null };
      await trx
        .insertInto("system_setting")
        .values({ key: MENU_VERSION_KEY, ...version })
        .onConflict((oc) => oc.column("key").doUpdateSet(version))
        .execute();
    }

    const admin = await trx
      .insertInto("user")
      .values({
        id: randomUUID(),
        name: "Super Admin",
        email,
        email_verified: 1,
        password_hash: passwordHash,
        created_at: ts,
        updated_at: ts,
      })
      .onConflict((oc) => oc.column("email").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (admin) {
      const superRole = await trx
        .selectFrom("role")
        .select("id")
        .where("name", "=", "super_admin")
        .executeTakeFirstOrThrow();
      await trx.insertInto("user_role").values({ user_id: admin.id, role_id: superRole.id }).execute();
      report.inserted.superAdmin = email;
      if (generatedPassword) report.generatedPassword = generatedPassword;
    } else {
      report.kept.superAdmin = email;
    }
  });

  return report;
}

export function describeSeed(report: SeedReport): string {
  const lines: string[] = [];
  for (const kind of ["permissions", "roles", "menuItems"] as const) {
    lines.push(
      `${kind}: inserted ${report.inserted[kind].length} [${report.inserted[kind].join(", ")}], left ${report.kept[kind].length} existing`,
    );
  }
  lines.push(
    report.inserted.superAdmin
      ? `super admin: created ${report.inserted.superAdmin}`
      : `super admin: ${report.kept.superAdmin} exists, left unchanged`,
  );
  return lines.join("\n");
}
