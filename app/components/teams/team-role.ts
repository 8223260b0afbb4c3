import type { TFunction } from "i18next";
import { TEAM_ROLES, type TeamRole } from "../../teams/team-roles";

/** A member's role in a team ("lead", "member") in the page's language; an unknown one as stored. */
export function teamRoleText(t: TFunction, role: string): string {
  if (!(TEAM_ROLES as readonly string[]).includes(role)) return role;
  switch (role as TeamRole) {
    case "lead":
      return t("teams:role.lead");
    case "member":
      return t("teams:role.member");
  }
}
