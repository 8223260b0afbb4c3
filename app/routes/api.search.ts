import { z } from "zod";
import { mayAnywhere, reachOf } from "../access/reach.server";
import { requireUser } from "../auth/guard.server";
import { findTeams } from "../teams/teams.server";
import { findUsers } from "../users/list.server";
import type { Route } from "./+types/api.search";

// The command palette's search (app/components/command-palette/): people and teams by name or
// email, each only for someone who may read them; the pages and actions it offers come from the
// sidebar and permissions the page already has.

const query = z.string().trim().max(100).catch("");

export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  const q = query.parse(new URL(args.request.url).searchParams.get("q") ?? "");
  // Held within a team, only that team and its people (decision 044).
  const [users, teams] = await Promise.all([
    mayAnywhere(user, "user.read") ? findUsers(q, reachOf(user, "user.read")) : [],
    mayAnywhere(user, "team.read") ? findTeams(q, reachOf(user, "team.read")) : [],
  ]);
  return Response.json({ q, users, teams }, { headers: { "Cache-Control": "private, no-store" } });
}
