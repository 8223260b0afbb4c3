import { type RawBuilder, sql } from "kysely";
import { likeLiteral } from "../../db/like";
import { superAdminRoleIds } from "../access/rules.server";
import type { AuditedActor } from "../audit/actor";
import type { AuditOrigin } from "../audit/audit.server";
import type { Directory } from "./directories.server";

// Whom a directory sees: the people it provisioned (until it deletes them), and the people of its
// email domains no other directory manages; never a super admin, whichever domain they are in.

/** A SCIM request's directory, the actor its changes are audited as, and where its resources live. */
export type ScimContext = {
  directory: Directory;
  actor: AuditedActor;
  origin: AuditOrigin;
  /** https://host/scim/v2 */
  baseUrl: string;
};

function domainMatch(domain: string) {
  const pattern = `%@${likeLiteral(domain)}`;
  return sql<boolean>`lower(${sql.ref("user.email")}) like ${pattern} escape '\\'`;
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

/** The condition on `user` rows a directory may see. */
export async function visibleTo(directory: Directory): Promise<RawBuilder<boolean>> {
  const superIds = await superAdminRoleIds();
  const owner = sql.ref("user.directory_id");
  const own = sql<boolean>`(${owner} = ${directory.id} and ${sql.ref("user.directory_deleted_at")} is null)`;
  const domains = directory.domains.map(domainMatch);
  const unowned = domains.length
    ? sql<boolean>`(${owner} is null and (${sql.join(domains, sql` or `)}))`
    : sql<boolean>`1 = 0`;
  const notSuperAdmin = superIds.length
    ? sql<boolean>`not exists (select 1 from user_role as sa where sa.user_id = ${sql.ref("user.id")} and sa.role_id in (${sql.join(superIds)}))`
    : sql<boolean>`1 = 1`;
  return sql<boolean>`((${own} or ${unowned}) and ${notSuperAdmin})`;
}
