import { Form, Link } from "react-router";
import { can } from "../access/check";
import { requirePermission } from "../access/guard.server";
import { handleIntents } from "../access/intents.server";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { Card, EmptyState, FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { redirectWithToast } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { createTeam, listTeams, teamSchema } from "../teams/teams.server";
import type { Route } from "./+types/dashboard.teams";

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "team.read");
  return { teams: await listTeams(), mayWrite: can(user, "team.write") };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) =>
  handleIntents(
    args,
    {
      create: {
        schema: teamSchema,
        run: async ({ actor, input }) => {
          const id = await createTeam(actor, input, args);
          return redirectWithToast(`/dashboard/teams/${id}`, {
            kind: "success",
            message: `Team "${input.name}" created.`,
          });
        },
      },
    },
    { permission: "team.write" },
  );

export default function Teams({ loaderData, actionData }: Route.ComponentProps) {
  const { teams, mayWrite } = loaderData;
  const creating = useIsPending({ intent: "create" });
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Teams</h1>
      {teams.length === 0 ? (
        <EmptyState>No teams yet.{mayWrite ? " Create the first one below." : ""}</EmptyState>
      ) : (
        <table className="w-full rounded-lg border border-slate-200 bg-white text-sm dark:border-slate-800 dark:bg-slate-900">
          <thead>
            <tr className="border-b border-slate-200 dark:border-slate-800">
              <th scope="col" className="px-3 py-2 text-left">
                Name
              </th>
              <th scope="col" className="px-3 py-2 text-left">
                Description
              </th>
              <th scope="col" className="px-3 py-2 text-right">
                Members
              </th>
            </tr>
          </thead>
          <tbody>
            {teams.map((t) => (
              <tr key={t.id} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <td className="px-3 py-2">
                  <Link
                    to={`/dashboard/teams/${t.id}`}
                    className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                  >
                    {t.name}
                  </Link>
                </td>
                <td className="px-3 py-2">{t.description || "—"}</td>
                <td className="px-3 py-2 text-right">{Number(t.members)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {mayWrite ? (
        <Card title="Create a team">
          <Form method="post" className="grid gap-3 sm:grid-cols-2">
            <Field label="Team name" name="name" required error={actionData?.errors?.name} />
            <Field label="Description" name="description" error={actionData?.errors?.description} />
            <FormError message={actionData?.formError} />
            <div className="sm:col-span-2">
              <Button name="intent" value="create" pending={creating}>
                Create team
              </Button>
            </div>
          </Form>
        </Card>
      ) : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Teams");
