import { db } from "../db.server";
import { invalidateEverywhere, registerCache } from "../events/cluster.server";
import { type Cidr, toCidrs } from "../http/cidr";
import { type LabelTranslations, readLabelTranslations } from "./label-translations";
import { sortRoles } from "./role-order";

export type RoleGrant = {
  id: string;
  name: string;
  label: string;
  /** The label per language an admin wrote (roleLabel says which one a page shows). */
  translations: LabelTranslations;
  /** What the role is for, as an admin wrote it; "" when nobody did. */
  description: string;
  all: boolean;
  permissions: Set<string>;
  /** Null: nobody may ask for it; else for at most this many hours (app/access/access-requests.server.ts). */
  maxRequestHours: number | null;
  /** The networks it may be used from (normal CIDR form); empty: anywhere (app/access/networks.server.ts). */
  allowedNetworks: string[];
  cidrs: Cidr[];
  /** Stricter than the global session limits; null: the global ones (app/auth/session-policy.server.ts). */
  sessionIdleMinutes: number | null;
  sessionMaxHours: number | null;
};

function networksOf(json: string): string[] {
  try {
    const list = JSON.parse(json);
    return Array.isArray(list) ? list.filter((n): n is string => typeof n === "string") : [];
  } catch {
    return [];
  }
}

let roles: Promise<Map<string, RoleGrant>> | undefined;

async function loadRoles(): Promise<Map<string, RoleGrant>> {
  const [roleRows, links] = await Promise.all([
    db()
      .selectFrom("role")
      .select([
        "id",
        "name",
        "label",
        "label_translations",
        "description",
        "all_permissions",
        "requestable",
        "max_request_hours",
        "allowed_networks",
        "session_idle_minutes",
        "session_max_hours",
      ])
      .execute(),
    db()
      .selectFrom("role_permission")
      .innerJoin("permission", "permission.id", "role_permission.permission_id")
      .select(["role_permission.role_id", "permission.key"])
      .execute(),
  ]);
  // Inserted in the one role order, so every list built from the map comes out in it.
  const map = new Map<string, RoleGrant>();
  for (const r of sortRoles(roleRows)) {
    map.set(r.id, {
      id: r.id,
      name: r.name,
      label: r.label,
      translations: readLabelTranslations(r.label_translations),
      description: r.description,
      all: r.all_permissions === 1,
      permissions: new Set(),
      maxRequestHours: r.requestable === 1 ? (r.max_request_hours ?? null) : null,
      allowedNetworks: networksOf(r.allowed_networks),
      cidrs: toCidrs(networksOf(r.allowed_networks)),
      sessionIdleMinutes: r.session_idle_minutes ?? null,
      sessionMaxHours: r.session_max_hours ?? null,
    });
  }
  for (const l of links) map.get(l.role_id)?.permissions.add(l.key);
  return map;
}

/** Role id -> grants (in the role order of role-order.ts), cached in process; every change to roles or their links calls invalidateRoles(). */
export function roleGrants(): Promise<Map<string, RoleGrant>> {
  if (!roles) {
    roles = loadRoles();
    roles.catch(() => {
      roles = undefined;
    });
  }
  return roles;
}

registerCache("roles", () => {
  roles = undefined;
});

/** Clears the cache here and on every other instance. */
export function invalidateRoles(): Promise<void> {
  return invalidateEverywhere("roles");
}

// What else must follow a change to what roles grant. Sessions are auth's, and auth sits above
// access (docs/architecture.md), so auth registers its part here: every "View as" is rechecked
// (app/auth/session-end.server.ts).
const afterChange = new Set<() => Promise<void>>();

export function onRolesChanged(run: () => Promise<void>) {
  afterChange.add(run);
}

/** After a role's permissions changed or it was deleted: the caches forget, then what auth registered runs. */
export async function rolesChanged(): Promise<void> {
  await invalidateRoles();
  for (const run of afterChange) await run();
}
