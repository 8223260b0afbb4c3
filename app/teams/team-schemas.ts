import { z } from "zod";
import { TEAM_ROLES } from "./team-roles";

// The team forms' schemas: the server parses with them and the page validates with the same ones.

export const teamSchema = z.object({
  name: z.string().trim().min(1, "teams.enterName").max(80),
  description: z.string().trim().max(500).default(""),
});

export const memberSchema = z.object({
  userId: z.string().uuid("teams.chooseUser"),
  teamRole: z.enum(TEAM_ROLES),
});

/** At most this many people in one "Add members". */
export const MAX_ADDED_AT_ONCE = 50;

export const addMembersSchema = z.object({
  userIds: z
    .array(z.string().uuid("teams.chooseUser"))
    .min(1, "teams.chooseUser")
    .max(MAX_ADDED_AT_ONCE, "teams.tooManyAtOnce"),
  teamRole: z.enum(TEAM_ROLES),
});

export type TeamInput = z.infer<typeof teamSchema>;

/** What the member search answers with (the combobox's options). */
export type MemberCandidate = { id: string; name: string; email: string };

/** At most this many people per search: the picker is for finding someone, not for browsing. */
export const MEMBER_SEARCH_LIMIT = 20;
