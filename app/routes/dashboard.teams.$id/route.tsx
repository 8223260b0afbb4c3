import type { TFunction } from "i18next";
import type { ShouldRevalidateFunctionArgs } from "react-router";
import { Form, Link, useActionData, useNavigation } from "react-router";
import { z } from "zod";
import { can } from "../../access/check";
import { SCOPABLE } from "../../access/decide";
import { mayOnTeam } from "../../access/reach.server";
import { roleGrants } from "../../access/role-cache.server";
import { roleLabel, roleNamesIn } from "../../access/role-labels";
import { requireSomewhere } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import { isPreview } from "../../components/access/change-preview";
import { useFormat } from "../../components/format";
import { FormErrors, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { pageTitle } from "../../components/page-title";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import { PREVIEW_GRANT } from "../../components/users/grant-role-form";
import { NotFound } from "../../domain-errors";
import { pageRefusal, redirectWithToast } from "../../http/form.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { addMembersSchema, memberSchema, teamSchema } from "../../teams/team-schemas";
import {
  addMembers,
  deleteTeam,
  getTeam,
  mayFindMembers,
  removeMember,
  setMember,
  updateTeam,
} from "../../teams/teams.server";
import {
  grantCandidates,
  grantRole,
  grantsInTeam,
  previewGrant,
  revokeGrant,
} from "../../users/grants.server";
import { offerUndo } from "../../users/undo.server";
import { teamGrantSchema } from "../../users/user-schemas";
import type { Route } from "./+types/route";
import { MembersCard } from "./members-card";
import { TeamGrantsCard } from "./team-grants-card";

const idSchema = z.string().uuid();
// A bad cursor opens the first page.
const pageRequest = z.object({
  after: z.string().max(2000).optional().catch(undefined),
  before: z.string().max(2000).optional().catch(undefined),
});
const missing = (t: TFunction) => pageRefusal(t, "teams.notFound", 404);

/** A grant's preview writes nothing: the page need not load again after one. */
export function shouldRevalidate({ formData, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return isPreview(formData) ? false : defaultShouldRevalidate;
}

export async function loader(args: Route.LoaderArgs) {
  // Out of the reader's reach is the same 404 as no team (decision 044); changes stay global for now.
  const user = await requireSomewhere(args, "team.read");
  const id = idSchema.safeParse(args.params.id);
  const params = new URL(args.request.url).searchParams;
  const page = pageRequest.parse(Object.fromEntries(params));
  const text = (name: string) =>
    z
      .string()
      .max(100)
      .catch("")
      .parse(params.get(name) ?? "");
  const member = text("member");
  const team =
    id.success && mayOnTeam(user, "team.read", id.data)
      ? await getTeam(id.data, { ...page, find: member })
      : null;
  if (!team) throw missing(getT(args.context));
  const mayGrant = mayOnTeam(user, "user.update", team.id);
  const [grants, people, roles] = await Promise.all([
    mayOnTeam(user, "user.read", team.id) ? grantsInTeam(team.id) : [],
    mayGrant ? grantCandidates(team.id) : [],
    roleGrants(),
  ]);
  const t = getT(args.context);
  const labels = roleNamesIn(t, roles.values());
  return {
    team,
    member,
    mayWrite: can(user, "team.write"),
    maySearch: mayFindMembers(user),
    grants: grants.map((g) => ({ ...g, role: { ...g.role, label: labels.get(g.role.id) ?? g.role.label } })),
    grantForm: mayGrant
      ? {
          // Oneself is granted by someone else.
          people: people.filter((p) => p.id !== user.id),
          roles: [...roles.values()]
            .filter((r) => !r.all && [...r.permissions].some((p) => SCOPABLE.has(p)))
            .map((r) => ({ name: r.name, label: labels.get(r.id) ?? r.label })),
        }
      : null,
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
  return handleIntents(args, {
    rename: {
      permission: "team.write",
      schema: teamSchema,
      run: async ({ actor, input }) => {
        await updateTeam(actor, { id: teamId(), ...input }, args);
        return ok(t("teams:toast.saved"));
      },
    },
    delete: {
      permission: "team.write",
      run: async ({ actor }) => {
        await deleteTeam(actor, { id: teamId() }, args);
        return ok(t("teams:toast.deleted"), "/dashboard/teams");
      },
    },
    "set-member": {
      permission: "team.write",
      schema: memberSchema,
      run: async ({ actor, input }) => {
        await setMember(actor, { teamId: teamId(), ...input }, args);
        return ok(t("teams:toast.memberSaved"));
      },
    },
    "add-members": {
      permission: "team.write",
      schema: addMembersSchema,
      run: async ({ actor, input }) => {
        const { added, already } = await addMembers(actor, { teamId: teamId(), ...input }, args);
        const parts = [
          added.length
            ? t("teams:toast.membersAdded", { count: added.length, names: added.join(", ") })
            : null,
          already.length
            ? t("teams:toast.alreadyMembers", { count: already.length, names: already.join(", ") })
            : null,
        ].filter((p) => p !== null);
        return ok(parts.join(" "));
      },
    },
    "remove-member": {
      permission: "team.write",
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
    // Roles within this team: for whoever reaches its people with user.update (decision 044).
    "grant-role": {
      schema: teamGrantSchema,
      run: async ({ actor, input }) => {
        if (!mayOnTeam(actor, "user.update", teamId())) throw new NotFound("teams.notFound");
        const expiresAt = input.until ? `${input.until}T23:59:59.999Z` : undefined;
        const grant = await grantRole(
          actor,
          input.userId,
          { role: input.role, team: teamId(), expiresAt },
          args,
        );
        return ok(
          t("users:access.toast.granted", { role: roleLabel(t, grant.role), team: grant.team?.name ?? "" }),
        );
      },
    },
    // What the grant form's choice would give, before it is sent (grant-role-form.tsx).
    [PREVIEW_GRANT]: {
      schema: teamGrantSchema,
      run: async ({ actor, input }) => {
        if (!mayOnTeam(actor, "user.update", teamId())) throw new NotFound("teams.notFound");
        return {
          // The shape of every answer here, so the page's own reading of actionData holds.
          ok: true as const,
          intent: PREVIEW_GRANT,
          errors: {} as Record<string, string>,
          formError: null,
          preview: await previewGrant(actor, input.userId, { role: input.role, team: teamId() }),
        };
      },
    },
    "revoke-grant": {
      run: async ({ actor, form }) => {
        if (!mayOnTeam(actor, "user.update", teamId())) throw new NotFound("teams.notFound");
        const grant = idSchema.safeParse(form.get("grant"));
        const userId = idSchema.safeParse(form.get("userId"));
        if (!grant.success || !userId.success) throw new NotFound("access.grant.gone");
        await revokeGrant(actor, userId.data, grant.data, args);
        return ok(t("users:access.toast.revoked"));
      },
    },
  });
}

type Team = Route.ComponentProps["loaderData"]["team"];

export default function TeamPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { team, member, mayWrite, maySearch, grants, grantForm } = loaderData;
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const intent = navigation.formData?.get("intent");
  const grantPending =
    intent === "grant-role"
      ? "grant"
      : intent === "revoke-grant"
        ? String(navigation.formData?.get("grant"))
        : null;
  const grantError =
    actionData &&
    "formError" in actionData &&
    ["grant-role", "revoke-grant"].includes(String(actionData.intent))
      ? actionData.formError
      : null;
  return (
    <div className="flex flex-col gap-6">
      <div>
        <Link to="/dashboard/teams" className={cn(linkVariants({ variant: "quiet" }), "text-sm")}>
          ← {t("teams:list.title")}
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">{team.name}</h1>
        {team.description ? <p className="text-muted-foreground">{team.description}</p> : null}
      </div>
      <MembersCard team={team} member={member} mayWrite={mayWrite} mayAdd={mayWrite && maySearch} />
      {grants.length || grantForm ? (
        <TeamGrantsCard
          teamName={team.name}
          grants={grants}
          form={grantForm}
          error={grantError ?? null}
          pending={grantPending}
        />
      ) : null}
      {mayWrite ? (
        <>
          <TeamDetails key={`${team.name}\u0000${team.description}`} team={team} />
          <DeleteTeam team={team} />
        </>
      ) : null}
    </div>
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
