import { randomUUID } from "node:crypto";
import { roleGrants } from "../access/role-cache.server";
import type { Actor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { refusedAddressOf } from "../http/outbound.server";
import type { MessageKey } from "../i18n/message";
import { encryptSecret } from "../security/secret-box.server";
import type { CreateProviderInput, UpdateProviderInput } from "./sso-schema";

// Identity providers and the password policy for their domains (decision 020).

type Admin = Pick<Actor, "id" | "email" | "isSuperAdmin">;

/** Never the client secret. */
export type ProviderView = {
  id: string;
  slug: string;
  name: string;
  issuer: string;
  clientId: string;
  domains: string[];
  roleId: string | null;
  passwordAllowed: boolean;
  hasSecret: boolean;
};

function assertSuperAdmin(actor: Admin) {
  if (!actor.isSuperAdmin) throw new RuleViolation("sso.superAdminOnly");
}

export function domainsOf(row: { allowed_domains: string }): string[] {
  try {
    const list = JSON.parse(row.allowed_domains);
    return Array.isArray(list) ? list.filter((d): d is string => typeof d === "string") : [];
  } catch {
    return [];
  }
}

export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

export async function listProviders(actor: Admin): Promise<ProviderView[]> {
  assertSuperAdmin(actor);
  const rows = await db()
    .selectFrom("oidc_provider")
    .select(["id", "slug", "name", "issuer", "client_id", "client_secret", "allowed_domains", "role_id"])
    .select("password_allowed")
    .orderBy("name")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    issuer: r.issuer,
    clientId: r.client_id,
    domains: domainsOf(r),
    roleId: r.role_id,
    passwordAllowed: r.password_allowed === 1,
    hasSecret: r.client_secret !== "",
  }));
}

export async function signInProviders(): Promise<{ slug: string; name: string }[]> {
  return db().selectFrom("oidc_provider").select(["slug", "name"]).orderBy("name").execute();
}

export async function rolesForNewAccounts() {
  return [...(await roleGrants()).values()]
    .filter((g) => !g.all)
    .map((g) => ({ id: g.id, name: g.name, label: g.label, translations: g.translations }));
}

async function assertRoleAllowed(roleId: string) {
  const grant = [...(await roleGrants()).values()].find((g) => g.id === roleId);
  if (!grant) throw new InvalidInput("sso.roleExists", "roleId");
  if (grant.all) throw new RuleViolation("sso.noSuperAdmin");
}

async function assertSlugFree(slug: string, exceptId?: string) {
  let query = db().selectFrom("oidc_provider").select("id").where("slug", "=", slug);
  if (exceptId) query = query.where("id", "!=", exceptId);
  if (await query.executeTakeFirst()) throw new InvalidInput("sso.slugTaken", "slug");
}

export const ISSUER_NOT_PUBLIC: MessageKey = "sso.issuerNotPublic";

/** The server connects only to public issuers, so it is said on save already. */
async function assertIssuerPublic(issuer: string) {
  if (await refusedAddressOf(issuer)) throw new InvalidInput(ISSUER_NOT_PUBLIC, "issuer");
}

function described(input: CreateProviderInput | UpdateProviderInput) {
  return {
    slug: input.slug,
    name: input.name,
    issuer: input.issuer,
    clientId: input.clientId,
    domains: input.domains,
    roleId: input.roleId,
    passwordAllowed: input.passwordAllowed,
  };
}

export async function createProvider(actor: Admin, input: CreateProviderInput, origin: AuditOrigin) {
  assertSuperAdmin(actor);
  await assertRoleAllowed(input.roleId);
  await assertSlugFree(input.slug);
  await assertIssuerPublic(input.issuer);
  const id = randomUUID();
  const ts = now();
  await db()
    .transaction()
    .execute(async (tx) => {
      await tx
        .insertInto("oidc_provider")
        .values({
          id,
          slug: input.slug,
          name: input.name,
          issuer: input.issuer,
          client_id: input.clientId,
          client_secret: encryptSecret(input.clientSecret),
          allowed_domains: JSON.stringify(input.domains),
          role_id: input.roleId,
          password_allowed: input.passwordAllowed ? 1 : 0,
          created_at: ts,
          updated_at: ts,
        })
        .execute();
      await audit(
        origin,
        {
          action: "sso.provider.create",
          actor,
          target: { type: "oidc_provider", id },
          details: described(input),
        },
        tx,
      );
    });
  return id;
}

export async function updateProvider(actor: Admin, input: UpdateProviderInput, origin: AuditOrigin) {
  assertSuperAdmin(actor);
  const existing = await db()
    .selectFrom("oidc_provider")
    .select("id")
    .where("id", "=", input.id)
    .executeTakeFirst();
  if (!existing) throw new NotFound("sso.providerGone");
  await assertRoleAllowed(input.roleId);
  await assertSlugFree(input.slug, input.id);
  await assertIssuerPublic(input.issuer);
  const secretChanged = Boolean(input.clientSecret?.trim());
  await db()
    .transaction()
    .execute(async (tx) => {
      await tx
        .updateTable("oidc_provider")
        .set({
          slug: input.slug,
          name: input.name,
          issuer: input.issuer,
          client_id: input.clientId,
          ...(secretChanged ? { client_secret: encryptSecret(input.clientSecret!.trim()) } : {}),
          allowed_domains: JSON.stringify(input.domains),
          role_id: input.roleId,
          password_allowed: input.passwordAllowed ? 1 : 0,
          updated_at: now(),
        })
        .where("id", "=", input.id)
        .execute();
      await audit(
        origin,
        {
          action: "sso.provider.update",
          actor,
          target: { type: "oidc_provider", id: input.id },
          details: { ...described(input), clientSecretChanged: secretChanged },
        },
        tx,
      );
    });
}

export async function deleteProvider(actor: Admin, id: string, origin: AuditOrigin) {
  assertSuperAdmin(actor);
  await db()
    .transaction()
    .execute(async (tx) => {
      const row = await tx
        .selectFrom("oidc_provider")
        .select(["slug", "name"])
        .where("id", "=", id)
        .executeTakeFirst();
      if (!row) throw new NotFound("sso.providerGone");
      await tx.deleteFrom("oidc_provider").where("id", "=", id).execute();
      await audit(
        origin,
        { action: "sso.provider.delete", actor, target: { type: "oidc_provider", id }, details: row },
        tx,
      );
    });
}

export async function passwordBlockedBy(email: string): Promise<{ name: string } | null> {
  const domain = domainOf(email);
  const rows = await db()
    .selectFrom("oidc_provider")
    .select(["name", "allowed_domains"])
    .where("password_allowed", "=", 0)
    .execute();
  const found = rows.find((r) => domainsOf(r).includes(domain));
  return found ? { name: found.name } : null;
}
