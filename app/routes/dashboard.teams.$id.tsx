import { data, Form, Link } from "react-router";
import { z } from "zod";
import { can } from "../access/check";
import { requirePermission } from "../access/guard.server";
import { handleIntents } from "../access/intents.server";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { Card, EmptyState, FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { Select } from "../components/ui/select";
import { NotFound } from "../domain-errors";
import { redirectWithToast } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { TEAM_ROLES } from "../teams/team-roles";
import {
  deleteTeam,
  getTeam,
  mayFindMembers,
  memberSchema,
  removeMember,
  searchUsers,
  setMember,
  teamSchema,
  updateTeam,
} from "../teams/teams.server";
import type { Route } from "./+types/dashboard.teams.$id";

const idSchema = z.string().uuid();
const missing = () => data({ message: "This team does not exist." }, { status: 404 });

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "team.read");
  const id = idSchema.safeParse(args.params.id);
  const team = id.success ? await getTeam(id.data) : null;
  if (!team) throw missing();
  const q = z
    .string()
    .max(100)
    .catch("")
    .parse(new URL(args.request.url).searchParams.get("find") ?? "");
  const maySearch = mayFindMembers(user);
  return {
    team,
    q: maySearch ? q : "",
    candidates: await searchUsers(user, q),
    mayWrite: can(user, "team.write"),
    maySearch,
  };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export function action(args: Route.ActionArgs) {
  // Checked after the permission, as before any intent runs: a malformed id names no team.
  const teamId = () => {
    const id = idSchema.safeParse(args.params.id);
    if (!id.success) throw missing();
    return id.data;
  };
  const ok = (message: string, to = `/dashboard/teams/${teamId()}`) =>
    redirectWithToast(to, { kind: "success", message });
  return handleIntents(
    args,
    {
      rename: {
        schema: teamSchema,
        run: async ({ actor, input }) => {
          await updateTeam(actor, { id: teamId(), ...input }, args);
          return ok("Team saved.");
        },
      },
      delete: {
        run: async ({ actor }) => {
          await deleteTeam(actor, { id: teamId() }, args);
          return ok("Team deleted.", "/dashboard/teams");
        },
      },
      "set-member": {
        schema: memberSchema,
        run: async ({ actor, input }) => {
          await setMember(actor, { teamId: teamId(), ...input }, args);
          return ok("Member saved.");
        },
      },
      "remove-member": {
        run: async ({ actor, form }) => {
          const userId = idSchema.safeParse(form.get("userId"));
          if (!userId.success) throw new NotFound("That member is not in this team.");
          await removeMember(actor, { teamId: teamId(), userId: userId.data }, args);
          return ok("Member removed.");
        },
      },
    },
    { permission: "team.write" },
  );
}

export default function TeamPage({ loaderData, actionData }: Route.ComponentProps) {
  const { team, q, candidates, mayWrite, maySearch } = loaderData;
  const settingMember = useIsPending({ intent: "set-member" });
  const renaming = useIsPending({ intent: "rename" });
  const deleting = useIsPending({ intent: "delete" });
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <div>
        <Link to="/dashboard/teams" className="text-sm text-indigo-700 hover:underline dark:text-indigo-300">
          ← Teams
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">{team.name}</h1>
        {team.description ? <p className="text-slate-700 dark:text-slate-300">{team.description}</p> : null}
      </div>
      <FormError message={actionData?.formError} />

      <Card title={`Members (${team.members.length})`}>
        {team.members.length === 0 ? (
          <EmptyState>No members yet.</EmptyState>
        ) : (
          <ul className="flex flex-col gap-2" data-testid="team-members">
            {team.members.map((m) => (
              <li key={m.id} className="flex flex-wrap items-center justify-between gap-2 text-sm">
                <span>
                  <Link
                    to={`/dashboard/users/${m.id}`}
                    className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                  >
                    {m.name}
                  </Link>{" "}
                  · {m.email} · {m.team_role}
                </span>
                {mayWrite ? (
                  <span className="flex gap-2">
                    <Form method="post">
                      <input type="hidden" name="userId" value={m.id} />
                      <input
                        type="hidden"
                        name="teamRole"
                        value={m.team_role === "lead" ? "member" : "lead"}
                      />
                      <Button
                        variant="secondary"
                        name="intent"
                        value="set-member"
                        className="px-2 py-1 text-xs"
                      >
                        Make {m.team_role === "lead" ? "member" : "lead"}
                      </Button>
                    </Form>
                    <Form method="post">
                      <input type="hidden" name="userId" value={m.id} />
                      <Button
                        variant="secondary"
                        name="intent"
                        value="remove-member"
                        className="px-2 py-1 text-xs"
                        aria-label={`Remove ${m.name}`}
                      >
                        Remove
                      </Button>
                    </Form>
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>

      {mayWrite ? (
        <>
          {maySearch ? (
            <Card title="Add a member">
              <Form method="get" className="flex items-end gap-2">
                <Field
                  label="Find a user by name or email"
                  name="find"
                  defaultValue={q}
                  type="search"
                  className="w-72"
                />
                <Button variant="secondary">Search</Button>
              </Form>
              {q && candidates.length === 0 ? <p className="mt-2 text-sm">No users match “{q}”.</p> : null}
              <ul className="mt-3 flex flex-col gap-2">
                {candidates.map((c) => (
                  <li key={c.id}>
                    <Form method="post" className="flex flex-wrap items-end gap-2 text-sm">
                      <input type="hidden" name="userId" value={c.id} />
                      <span className="min-w-56">
                        {c.name} · {c.email}
                      </span>
                      <Select label={`Team role for ${c.name}`} name="teamRole" defaultValue="member">
                        {TEAM_ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </Select>
                      <Button name="intent" value="set-member" pending={settingMember}>
                        Add {c.name}
                      </Button>
                    </Form>
                  </li>
                ))}
              </ul>
            </Card>
          ) : null}
          <Card title="Team details">
            <Form method="post" className="grid gap-3 sm:grid-cols-2">
              <Field
                label="Team name"
                name="name"
                defaultValue={team.name}
                required
                error={actionData?.errors?.name}
              />
              <Field label="Description" name="description" defaultValue={team.description} />
              <div className="flex gap-2 sm:col-span-2">
                <Button name="intent" value="rename" pending={renaming}>
                  Save
                </Button>
              </div>
            </Form>
            <Form
              method="post"
              className="mt-4"
              onSubmit={(e) => {
                if (!confirm(`Delete the team "${team.name}"? Members keep their accounts.`))
                  e.preventDefault();
              }}
            >
              <Button variant="danger" name="intent" value="delete" pending={deleting}>
                Delete team {team.name}
              </Button>
            </Form>
          </Card>
        </>
      ) : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData?.team.name ?? "Team");
