import { SYSTEM_ROLES } from "./roles";

// The one order roles are listed in, everywhere (filters, tick boxes, a user's roles, invitations):
// the system roles by rank as the seed lists them (super_admin, admin, manager, user, guest), then
// custom roles by label. Shared by server and browser.

const RANK = SYSTEM_ROLES.map((r) => r.name);

type Named = { name: string; label?: string };

function rankOf(name: string) {
  const at = RANK.indexOf(name);
  return at === -1 ? RANK.length : at;
}

export function compareRoles(a: Named, b: Named): number {
  return (
    rankOf(a.name) - rankOf(b.name) ||
    (a.label ?? a.name).localeCompare(b.label ?? b.name, "en", { sensitivity: "base" }) ||
    a.name.localeCompare(b.name)
  );
}

/** A sorted copy; the input is left alone. */
export function sortRoles<T extends Named>(roles: Iterable<T>): T[] {
  return [...roles].sort(compareRoles);
}
