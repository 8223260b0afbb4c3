import type { TFunction } from "i18next";
import { useEffect, useRef, useState } from "react";
import { Form, Link, useFetcher } from "react-router";
import { z } from "zod";
import { can } from "../access/check";
import { requirePermission } from "../auth/guard.server";
import { handleIntents } from "../auth/intents.server";
import { useFormat } from "../components/format";
import { FormErrors, SelectField, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { teamRoleText } from "../components/teams/team-role";
import { ConfirmDialog } from "../components/ui/alert-dialog";
import { Badge } from "../components/ui/badge";
import { Button } from "../components/ui/button";
import { Card } from "../components/ui/card";
import { cn } from "../components/ui/cn";
import { linkVariants } from "../components/ui/link";
import { Pagination } from "../components/ui/pagination";
import { type ComboboxOption, SearchCombobox } from "../components/ui/search-combobox";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../components/ui/table";
import { NotFound } from "../domain-errors";
import { pageRefusal, redirectWithToast } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { useTranslation } from "../i18n/use-translation";
import { TEAM_ROLES, type TeamRole } from "../teams/team-roles";
import { type MemberCandidate, memberSchema, teamSchema } from "../teams/team-schemas";
import {
  deleteTeam,
  getTeam,
  mayFindMembers,
  removeMember,
  searchUsers,
  setMember,
  updateTeam,
} from "../teams/teams.server";
import { offerUndo } from "../users/undo.server";
import type { Route } from "./+types/dashboard.teams.$id";

const idSchema = z.string().uuid();
// A bad cursor opens the first page.
const pageRequest = z.object({
  after: z.string().max(2000).optional().catch(undefined),
  before: z.string().max(2000).optional().catch(undefined),
});
const missing = (t: TFunction) => pageRefusal(t, "teams.notFound", 404);

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "team.read");
  const id = idSchema.safeParse(args.params.id);
  const params = new URL(args.request.url).searchParams;
  const page = pageRequest.parse(Object.fromEntries(params));
  const team = id.success ? await getTeam(id.data, page) : null;
  if (!team) throw missing(getT(args.context));
  const q = z
    .string()
    .max(100)
    .catch("")
    .parse(params.get("find") ?? "");
  const maySearch = mayFindMembers(user);
  return {
    team,
    q: maySearch ? q : "",
    candidates: await searchUsers(user, q, { excludeTeam: team.id }),
    mayWrite: can(user, "team.write"),
    maySearch,
  };
}

export const headers = passRetryAfter;

export function action(args: Route.ActionArgs) {
  // A malformed id names no team.
  const teamId = () => {
    const id = idSchema.safeParse(args.params.id);
    if (!id.success) throw missing(t);
    return id.data;
  };
  const t = getT(args.context);
  const ok = (message: string, to = `/dashboard/teams/${teamId()}`, undo?: string) =>
    redirectWithToast(to, { kind: "success", message, undo });
  return handleIntents(
    args,
    {
      rename: {
        schema: teamSchema,
        run: async ({ actor, input }) => {
          await updateTeam(actor, { id: teamId(), ...input }, args);
          return ok(t("teams:toast.saved"));
        },
      },
      delete: {
        run: async ({ actor }) => {
          await deleteTeam(actor, { id: teamId() }, args);
          return ok(t("teams:toast.deleted"), "/dashboard/teams");
        },
      },
      "set-member": {
        schema: memberSchema,
        run: async ({ actor, input }) => {
          await setMember(actor, { teamId: teamId(), ...input }, args);
          return ok(t("teams:toast.memberSaved"));
        },
      },
      "remove-member": {
        run: async ({ actor, form }) => {
          const userId = idSchema.safeParse(form.get("userId"));
          if (!userId.success) throw new NotFound("teams.notMember");
          const teamRole = await removeMember(actor, { teamId: teamId(), userId: userId.data }, args);
          const undo = await offerUndo(actor, {
            kind: "team.member.remove",
            teamId: teamId(),
            userId: userId.data,
            teamRole,
          });
          return ok(t("teams:toast.memberRemoved"), undefined, undo);
        },
      },
    },
    { permission: "team.write" },
  );
}

type Team = Route.ComponentProps["loaderData"]["team"];
type Member = Team["members"][number];

const makeText = (t: TFunction, role: TeamRole) =>
  role === "lead" ? t("teams:member.makeLead") : t("teams:member.makeMember");

export default function TeamPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { formatNumber } = useFormat();
  const { team, mayWrite, maySearch } = loaderData;
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <div>
        <Link to="/dashboard/teams" className={cn(linkVariants({ variant: "quiet" }), "text-sm")}>
          ← {t("teams:list.title")}
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">{team.name}</h1>
        {team.description ? <p className="text-muted-foreground">{team.description}</p> : null}
      </div>

      <Card title={t("teams:members.title", { count: formatNumber(team.memberCount) })}>
        <Table caption={t("teams:members.caption", { name: team.name })}>
          <TableHead>
            <TableHeader>{t("teams:column.name")}</TableHeader>
            <TableHeader>{t("teams:column.email")}</TableHeader>
            <TableHeader>{t("teams:column.teamRole")}</TableHeader>
            {mayWrite ? (
              <TableHeader align="right">
                <span className="sr-only">{t("teams:column.actions")}</span>
              </TableHeader>
            ) : null}
          </TableHead>
          <TableBody>
            {team.members.length === 0 ? (
              <TableEmpty colSpan={mayWrite ? 4 : 3}>{t("teams:members.empty")}</TableEmpty>
            ) : (
              team.members.map((m) => <MemberRow key={m.id} team={team} member={m} mayWrite={mayWrite} />)
            )}
          </TableBody>
        </Table>
        {team.membersPage.prev || team.membersPage.next ? (
          <Pagination
            label={t("teams:members.pages")}
            noun="members"
            range={t("teams:members.range", {
              from: formatNumber(team.membersPage.start),
              to: formatNumber(team.membersPage.start + team.members.length - 1),
              total: formatNumber(team.memberCount),
              count: team.memberCount,
            })}
            prevLabel={t("teams:list.previous")}
            nextLabel={t("teams:list.next")}
            start={team.membersPage.start}
            shown={team.members.length}
            total={{ count: team.memberCount, capped: false }}
            prev={team.membersPage.prev}
            next={team.membersPage.next}
          />
        ) : null}
      </Card>

      {mayWrite && maySearch ? <AddMember team={team} /> : null}
      {mayWrite ? (
        <>
          <TeamDetails key={`${team.name}\u0000${team.description}`} team={team} />
          <DeleteTeam team={team} />
        </>
      ) : null}
    </div>
  );
}

function MemberRow({ team, member, mayWrite }: { team: Team; member: Member; mayWrite: boolean }) {
  const { t } = useTranslation();
  const role = member.team_role as TeamRole;
  const other: TeamRole = role === "lead" ? "member" : "lead";
  const removeForm = `remove-${member.id}`;
  return (
    <TableRow>
      <TableCell>
        <Link to={`/dashboard/users/${member.id}`} className={linkVariants({ variant: "quiet" })}>
          {member.name}
        </Link>
      </TableCell>
      <TableCell className="break-all">{member.email}</TableCell>
      <TableCell>
        <Badge variant={role === "lead" ? "info" : "neutral"}>{teamRoleText(t, role)}</Badge>
      </TableCell>
      {mayWrite ? (
        <TableCell align="right">
          <span className="flex flex-wrap justify-end gap-2">
            <Form method="post">
              <input type="hidden" name="userId" value={member.id} />
              <input type="hidden" name="teamRole" value={other} />
              <Button
                variant="secondary"
                name="intent"
                value="set-member"
                size="xs"
                aria-label={
                  other === "lead"
                    ? t("teams:member.makeLeadLabel", { name: member.name })
                    : t("teams:member.makeMemberLabel", { name: member.name })
                }
              >
                {makeText(t, other)}
              </Button>
            </Form>
            <Form method="post" id={removeForm}>
              <input type="hidden" name="userId" value={member.id} />
            </Form>
            <ConfirmDialog
              trigger={
                <Button type="button" variant="secondary" size="xs">
                  {t("teams:member.remove")} <span className="sr-only">{member.name}</span>
                </Button>
              }
              title={t("teams:member.removeTitle", { name: member.name, team: team.name })}
              description={t("teams:member.removeDescription", { name: member.name, team: team.name })}
              actionLabel={t("teams:member.removeAction")}
              cancelLabel={t("teams:cancel")}
              formId={removeForm}
              value="remove-member"
            />
          </span>
        </TableCell>
      ) : null}
    </TableRow>
  );
}

/** The loader checks the permission and caps the answer. */
function AddMember({ team }: { team: Team }) {
  const { t } = useTranslation();
  const search = useFetcher<typeof loader>();
  const [query, setQuery] = useState("");
  const [asked, setAsked] = useState("");
  const [form, fields] = useAppForm({
    schema: memberSchema,
    id: "add-member",
    intent: "set-member",
    defaultValue: { teamRole: "member" },
  });
  const userIdRef = useRef<HTMLInputElement>(null);
  const adding = useIsPending({ intent: "set-member" });
  const load = search.load;

  useEffect(() => {
    const text = query.trim();
    if (!text) return;
    const timer = setTimeout(() => {
      setAsked(text);
      load(`/dashboard/teams/${team.id}?find=${encodeURIComponent(text)}`);
    }, 200);
    return () => clearTimeout(timer);
  }, [query, team.id, load]);

  const found: MemberCandidate[] = search.data && search.data.q === asked ? search.data.candidates : [];
  const options: ComboboxOption[] = query.trim()
    ? found.map((c) => ({ id: c.id, label: c.name, description: c.email }))
    : [];
  const searching = query.trim() !== "" && (search.state !== "idle" || asked !== query.trim());

  function add(option: ComboboxOption) {
    const element = document.getElementById(form.id);
    if (!(element instanceof HTMLFormElement) || !userIdRef.current || adding) return;
    userIdRef.current.value = option.id;
    setQuery("");
    // The combobox keeps the focus, so the next person is typed at once; the toast only announces.
    element.requestSubmit(element.querySelector<HTMLButtonElement>('button[value="set-member"]'));
  }

  return (
    <Card title={t("teams:add.title")}>
      <Form method="post" className="grid gap-3 sm:grid-cols-[1fr_12rem]" {...getFormProps(form)}>
        <input ref={userIdRef} type="hidden" name={fields.userId.name} defaultValue="" />
        <SearchCombobox
          label={t("teams:add.find")}
          query={query}
          onQueryChange={setQuery}
          options={options}
          searching={searching}
          onSelect={add}
        />
        <SelectField meta={fields.teamRole} label={t("teams:column.teamRole")}>
          {TEAM_ROLES.map((r) => (
            <option key={r} value={r}>
              {teamRoleText(t, r)}
            </option>
          ))}
        </SelectField>
        <div className="sm:col-span-2">
          <FormErrors form={form} />
          <p className="text-sm text-muted-foreground">{t("teams:add.help")}</p>
        </div>
        {/* The submitter that carries the intent when a person is picked; not a control of its own. */}
        <button type="submit" name="intent" value="set-member" hidden tabIndex={-1} />
      </Form>
    </Card>
  );
}

function TeamDetails({ team }: { team: Team }) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({
    schema: teamSchema,
    id: "team-details",
    intent: "rename",
    defaultValue: { name: team.name, description: team.description },
  });
  const renaming = useIsPending({ intent: "rename" });
  return (
    <Card title={t("teams:details.title")}>
      <Form method="post" className="grid gap-3 sm:grid-cols-2" {...getFormProps(form)}>
        <TextField meta={fields.name} label={t("teams:field.name")} />
        <TextField meta={fields.description} label={t("teams:field.description")} />
        <div className="sm:col-span-2">
          <FormErrors form={form} />
        </div>
        <div className="sm:col-span-2">
          <Button name="intent" value="rename" pending={renaming}>
            {t("teams:details.save")}
          </Button>
        </div>
      </Form>
    </Card>
  );
}

function DeleteTeam({ team }: { team: Team }) {
  const { t } = useTranslation();
  const { formatNumber } = useFormat();
  const deleting = useIsPending({ intent: "delete" });
  const count = team.memberCount;
  return (
    <Card title={t("teams:delete.title")}>
      <p className="mb-3 text-sm text-muted-foreground">{t("teams:delete.intro")}</p>
      <Form method="post" id="delete-team" />
      <ConfirmDialog
        trigger={
          <Button type="button" variant="destructive" pending={deleting}>
            {t("teams:delete.button", { name: team.name })}
          </Button>
        }
        title={t("teams:delete.confirmTitle", { name: team.name })}
        description={
          count === 0
            ? t("teams:delete.noMembers")
            : t("teams:delete.members", { count, people: formatNumber(count) })
        }
        actionLabel={t("teams:delete.action")}
        confirmLabel={t("teams:typeToConfirm")}
        cancelLabel={t("teams:cancel")}
        confirmText={count > 0 ? team.name : undefined}
        formId="delete-team"
        value="delete"
      />
    </Card>
  );
}

export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData?.team.name ? { name: loaderData.team.name } : "team");
