import { whoCan } from "../access/explain.server";
import { isPermissionKey } from "../access/permissions";
import { whoQuery as query } from "../access/role-schemas";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { toCsv } from "../tasks/csv";
import { teamExists } from "../teams/teams.server";
import type { Route } from "./+types/api.access.who";

// Everyone who holds a permission and through what (docs/http-contract.md, "Who"), paged by name;
// `format=csv` is every holder as a file.

const CSV_PAGE = 500;

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "roles.manage");
  const params = Object.fromEntries(new URL(args.request.url).searchParams);
  const q = query.safeParse(params);
  if (!q.success) {
    const issue = q.error.issues[0]!;
    return apiError(400, "invalid_request", { field: issue.path.join("."), message: issue.message });
  }
  const { permission, team } = q.data;
  if (!isPermissionKey(permission))
    return apiError(400, "invalid_request", { field: "permission", message: "Choose a known permission." });
  if (team && !(await teamExists(team))) return apiError(404, "not_found");
  const headers = { "Cache-Control": "private, no-store" };
  if (q.data.format === "json")
    return Response.json(
      await whoCan(permission, { teamId: team, limit: q.data.limit, offset: q.data.offset }),
      {
        headers,
      },
    );
  const rows = [["name", "email", "super_admin", "grants"]];
  for (let offset = 0; ; offset += CSV_PAGE) {
    const page = await whoCan(permission, { teamId: team, limit: CSV_PAGE, offset });
    for (const u of page.users)
      rows.push([
        u.name,
        u.email,
        u.superAdmin ? "yes" : "no",
        u.grants.map((g) => (g.team ? `${g.role.name} in ${g.team.name}` : g.role.name)).join("; "),
      ]);
    if (page.users.length < CSV_PAGE) break;
  }
  return new Response(toCsv(rows), {
    headers: {
      ...headers,
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="who-can-${permission}.csv"`,
    },
  });
}
