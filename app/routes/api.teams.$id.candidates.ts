import { z } from "zod";
import { can } from "../access/check";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { searchUsers, teamExists } from "../teams/teams.server";
import type { Route } from "./+types/api.teams.$id.candidates";

// The team page's "Add members" picker: active people not yet in the team, by name or email. Its
// own route, so each keystroke reads only this (it went through the whole team page's loader).

const idSchema = z.string().uuid();
const query = z.string().trim().max(100).catch("");

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "team.write");
  // Names and emails are user.read material: managing teams alone must not enumerate people.
  if (!can(user, "user.read")) return apiError(403, "forbidden", { permission: "user.read" });
  const id = idSchema.safeParse(args.params.id);
  if (!id.success || !(await teamExists(id.data))) return apiError(404, "not_found");
  const q = query.parse(new URL(args.request.url).searchParams.get("q") ?? "");
  const candidates = await searchUsers(user, q, { excludeTeam: id.data });
  return Response.json({ q, candidates }, { headers: { "Cache-Control": "private, no-store" } });
}
