// A change of several people's roles at once (the users list's "Change roles"): shared by the
// server, which applies it, and the dialog, which says beforehand who would be left with none.

export const ROLE_CHANGE_MODES = ["add", "remove", "replace"] as const;
export type RoleChangeMode = (typeof ROLE_CHANGE_MODES)[number];
export type RoleChange = { mode: RoleChangeMode; roleIds: readonly string[] };

/** The roles someone holding `before` holds after the change, in a stable order. */
export function rolesAfter(before: readonly string[], change: RoleChange): string[] {
  const chosen = new Set(change.roleIds);
  if (change.mode === "replace") return [...chosen];
  if (change.mode === "remove") return before.filter((r) => !chosen.has(r));
  return [...new Set([...before, ...chosen])];
}

export function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((r) => set.has(r));
}
