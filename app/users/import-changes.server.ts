import type { TFunction } from "i18next";
import { roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import type { ImportChange } from "./import.server";

/** An update in the import preview as before → after, roles by their name in the reader's language. */
export async function importChangesText(t: TFunction, changes: ImportChange[]): Promise<string> {
  const grants = await roleGrants();
  const roles = (ids: string[]) =>
    ids.length
      ? ids.map((id) => (grants.get(id) ? roleLabel(t, grants.get(id)!) : id)).join(", ")
      : t("users:import.change.noRoles");
  return changes
    .map((c) => {
      if (c.field === "name") return t("users:import.change.name", { before: c.before, after: c.after });
      if (c.field === "roles")
        return t("users:import.change.roles", { before: roles(c.before), after: roles(c.after) });
      if (c.field === "teams") return t("users:import.change.teams", { teams: c.added.join(", ") });
      return t("users:import.change.verified");
    })
    .join(" ");
}
