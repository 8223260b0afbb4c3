import { FileUp, Mail, UserPlus } from "lucide-react";
import type { ShouldRevalidateFunctionArgs } from "react-router";
import { data, Link, useSearchParams } from "react-router";
import { z } from "zod";
import { can } from "../../access/check";
import { mayAnywhere, reachOf } from "../../access/reach.server";
import { roleGrants } from "../../access/role-cache.server";
import { permissionsOf } from "../../access/role-can";
import { roleLabel } from "../../access/role-labels";
import { DEFAULT_ROLE_FOR_NEW_USERS } from "../../access/roles";
import { assignableRoles } from "../../access/rules.server";
import { inviteSchema } from "../../auth/account-schemas";
import { requireSomewhere } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import { revealInvitationLink } from "../../auth/invitation-links.server";
import { invitationOutcomeText } from "../../auth/invitation-text";
import {
  cancelInvitation,
  inviteUser,
  pendingInvitations,
  resendInvitation,
} from "../../auth/invitations.server";
import { isPreview } from "../../components/access/change-preview";
import { useFormat } from "../../components/format";
import { FormDialog } from "../../components/forms/form-dialog";
import { pageTitle } from "../../components/page-title";
import { Button, buttonVariants } from "../../components/ui/button";
import { EmptyState, FormError } from "../../components/ui/card";
import { Field } from "../../components/ui/field";
import { linkVariants } from "../../components/ui/link";
import { type FilterChip, FilterChips, FilterForm } from "../../components/ui/list-filters";
import { Pagination } from "../../components/ui/pagination";
import { Select } from "../../components/ui/select";
import { useRowSelection } from "../../components/ui/table";
import { isLinkReveal } from "../../components/users/invite-link";
import { SavedViewsControl } from "../../components/views/saved-views-control";
import { NotFound } from "../../domain-errors";
import { redirectWithToast } from "../../http/form.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { done } from "../../settings/answers.server";
import { bulkIntents } from "../../tasks/users-bulk-intents.server";
import { teamChoices } from "../../teams/teams.server";
import { listUsers, parseUserListQuery, type UserListQuery } from "../../users/list.server";
import { PAGE_SIZES } from "../../users/list-options";
import { createUserSchema } from "../../users/user-schemas";
import { createUser } from "../../users/users.server";
import { viewsForList } from "../../views/saved-views.server";
import type { Route } from "./+types/route";
import { BulkActions } from "./bulk-actions";
import { CreateUserForm } from "./create-user-form";
import { InvitationsPanel } from "./invitations-panel";
import { InviteForm } from "./invite-form";
import { RoleFilter, type RoleFilterProps } from "./role-filter";
import { UsersList } from "./users-list";
import { UsersTabs } from "./users-tabs";

/**
 * A preview writes nothing, and revealing an invitation's link changes nothing the page shows:
 * the page need not load again after either. (Loading it again re-rendered the invitation's copy
 * button while its clipboard answer was on its way, and the "copied" status was sometimes lost.)
 */
export function shouldRevalidate({ formData, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return isPreview(formData) || isLinkReveal(formData) ? false : defaultShouldRevalidate;
}

export async function loader(args: Route.LoaderArgs) {
  // Held within a team, it lists that team's people only (decision 044).
  const user = await requireSomewhere(args, "user.read");
  const query = parseUserListQuery(new URL(args.request.url));
  const mayWrite = can(user, "user.write");
  const mayTeams = can(user, "team.write");
  const [list, grants, assignable, invitations, teams, savedViews] = await Promise.all([
    listUsers(query, reachOf(user, "user.read")),
    roleGrants(),
    assignableRoles(user),
    mayWrite ? pendingInvitations(user) : Promise.resolve([]),
    mayTeams ? teamChoices() : Promise.resolve([]),
    viewsForList(user, "users", args.url),
  ]);
  const grantable = assignable.map((r) => ({
    id: r.id,
    name: r.name,
    label: r.label,
    translations: r.translations,
    description: r.description,
    permissions: permissionsOf(r),
  }));
  const offered = mayWrite ? grantable : [];
  return {
    query,
    ...list,
    roles: [...grants.values()].map((r) => ({
      id: r.id,
      name: r.name,
      label: r.label,
      translations: r.translations,
    })),
    assignable: offered,
    defaultRoles: offered.filter((r) => r.name === DEFAULT_ROLE_FOR_NEW_USERS).map((r) => r.id),
    invitations,
    // user.update gives and takes roles, as on a person's page.
    bulkRoles: can(user, "user.update") ? grantable : [],
    teams,
    savedViews,
    may: {
      write: mayWrite,
      // Held within a team, the bulk bar enables, disables and deletes that team's people.
      update: mayAnywhere(user, "user.update"),
      delete: mayAnywhere(user, "user.delete"),
      teams: mayTeams,
    },
  };
}

// A 429's Retry-After, and the no-store of an invitation link's answer, reach the browser only through this.
export const headers = passRetryAfter;

function backWith(args: Route.ActionArgs, kind: "success" | "error" | "warning", message: string) {
  const back = args.url; // the page's address, not the raw `.data` one (decision 027)
  return redirectWithToast(back.pathname + back.search, { kind, message });
}

/** The same 404 as one spent meanwhile. */
function invitationId(form: FormData) {
  const id = z.string().uuid().safeParse(form.get("invitationId"));
  if (!id.success) throw new NotFound("auth.invitationGone");
  return id.data;
}

export const action = (args: Route.ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      create: {
        permission: "user.write",
        schema: createUserSchema,
        run: async ({ actor, input }) => {
          const id = await createUser(actor, input, args);
          return redirectWithToast(`/dashboard/users/${id}`, {
            kind: "success",
            message: t("users:toast.created", { email: input.email }),
          });
        },
      },
      invite: {
        permission: "user.write",
        schema: inviteSchema,
        run: async ({ actor, input }) => {
          const outcome = await inviteUser(actor, { email: input.email, roleIds: input.roles }, args);
          const sent = t("users:toast.invited", { email: input.email });
          if (outcome.mail.sent) return backWith(args, "success", sent);
          // Not emailed: the dialog stays open on the news, with the link to copy (its own audited ask).
          return done("invite", invitationOutcomeText(t, outcome, sent), {
            unsent: { id: outcome.id, email: outcome.email },
          });
        },
      },
      "resend-invite": {
        permission: "user.write",
        run: async ({ actor, form }) => {
          const outcome = await resendInvitation(actor, { id: invitationId(form) }, args);
          const sent = t("users:toast.inviteResent");
          return backWith(
            args,
            outcome.mail.sent ? "success" : "warning",
            invitationOutcomeText(t, outcome, sent),
          );
        },
      },
      // Answered to this request only: never in a toast cookie, a loader's data or a log line.
      "invite-link": {
        permission: "user.write",
        run: async ({ actor, form }) => {
          const { email, link, expiresAt } = await revealInvitationLink(
            actor,
            { id: invitationId(form) },
            args,
          );
          return data(
            { ok: true as const, intent: "invite-link", errors: {}, formError: null, email, link, expiresAt },
            { headers: { "Cache-Control": "no-store" } },
          );
        },
      },
      "cancel-invite": {
        permission: "user.write",
        run: async ({ actor, form }) => {
          await cancelInvitation(actor, { id: invitationId(form) }, args);
          return backWith(args, "success", t("users:toast.inviteCancelled"));
        },
      },
      ...bulkIntents(args),
    },
    // "All matching" must never act on a list the person cannot see; held within a team, the list is that team's.
    { permission: "user.read", somewhere: true },
  );
};

export default function Users({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { formatNumber } = useFormat();
  const {
    rows,
    total,
    totalCapped,
    start,
    prev,
    next,
    query,
    roles,
    assignable,
    bulkRoles,
    defaultRoles,
    invitations,
    teams,
    may,
    savedViews,
  } = loaderData;
  const selection = useRowSelection(rows.map((r) => r.id));
  const [params] = useSearchParams();
  const opening = params.get("new");
  const tab = params.get("tab");
  const bulkError =
    actionData?.formError && actionData.intent?.startsWith("bulk") ? actionData.formError : null;
  const invitationError =
    actionData?.formError && actionData.intent?.endsWith("-invite") ? actionData.formError : null;

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">{t("users:list.title")}</h1>
        {may.update ? (
          <Link to="/dashboard/sessions" className={linkVariants()}>
            {t("users:sessions.link")}
          </Link>
        ) : null}
        {may.write ? (
          <div className="flex flex-wrap gap-2">
            <FormDialog
              intent="invite"
              defaultOpen={opening === "invite"}
              title={t("users:invite.title")}
              description={t("users:invite.description")}
              trigger={
                <Button type="button">
                  <Mail aria-hidden className="size-4" />
                  {t("users:invite.button")}
                </Button>
              }
            >
              <InviteForm roles={assignable} defaultRoles={defaultRoles} />
            </FormDialog>
            <FormDialog
              intent="create"
              defaultOpen={opening === "user"}
              title={t("users:create.title")}
              description={t("users:create.description")}
              trigger={
                <Button type="button" variant="secondary">
                  <UserPlus aria-hidden className="size-4" />
                  {t("users:create.button")}
                </Button>
              }
            >
              <CreateUserForm roles={assignable} defaultRoles={defaultRoles} />
            </FormDialog>
            <Link to="/dashboard/users/import" className={buttonVariants({ variant: "secondary" })}>
              <FileUp aria-hidden className="size-4" />
              {t("users:import.button")}
            </Link>
          </div>
        ) : null}
      </div>

      {may.write ? <UsersTabs invitations={invitations.length} /> : null}
      {may.write && tab === "invitations" ? (
        <InvitationsPanel invitations={invitations} error={invitationError} />
      ) : (
        <>
          <SavedViewsControl saved={savedViews} />
          <UserFilters query={query} roles={roles} />

          {rows.length > 0 ? (
            <BulkActions
              selection={selection}
              rows={rows}
              may={may}
              roles={bulkRoles.map((r) => ({ id: r.id, label: roleLabel(t, r) }))}
              teams={teams}
              total={{ count: total, capped: totalCapped }}
              filter={{
                q: query.q,
                role: query.role,
                status: query.status,
                verified: query.verified,
                created: query.created,
              }}
            />
          ) : null}
          {bulkError ? <FormError message={bulkError} /> : null}

          {rows.length === 0 ? (
            <EmptyState>{t("users:list.empty")}</EmptyState>
          ) : (
            <UsersList rows={rows} selection={selection} />
          )}
          <Pagination
            label={t("users:list.pages")}
            noun="users"
            range={
              rows.length === 0
                ? t("users:list.rangeNone")
                : t("users:list.range", {
                    from: formatNumber(start),
                    to: formatNumber(start + rows.length - 1),
                    total: `${formatNumber(total)}${totalCapped ? "+" : ""}`,
                    count: total,
                  })
            }
            prevLabel={t("users:list.previous")}
            nextLabel={t("users:list.next")}
            start={start}
            shown={rows.length}
            total={{ count: total, capped: totalCapped }}
            prev={prev}
            next={next}
          />
        </>
      )}
    </div>
  );
}

function UserFilters({ query, roles }: { query: UserListQuery; roles: RoleFilterProps["roles"] }) {
  const { t } = useTranslation();
  const roleText = (name: string) => {
    const role = roles.find((r) => r.name === name);
    return role ? roleLabel(t, role) : name;
  };
  const chips: FilterChip[] = [
    query.q ? { name: "q", label: t("users:filters.search"), value: query.q } : null,
    query.role
      ? {
          name: "role",
          label: t("users:filters.role"),
          value: query.role.split(",").map(roleText).join(", "),
        }
      : null,
    query.status
      ? { name: "status", label: t("users:filters.status"), value: t(`users:status.${query.status}`) }
      : null,
    query.verified
      ? { name: "verified", label: t("users:filters.verified"), value: t(`users:verified.${query.verified}`) }
      : null,
    query.created
      ? { name: "created", label: t("users:filters.created"), value: t("users:filters.createdWeek") }
      : null,
  ].filter((c) => c !== null);
  return (
    <div className="flex flex-col gap-3">
      <FilterForm
        label={t("users:filters.label")}
        applyLabel={t("users:filters.apply")}
        // The role boxes follow the address themselves (role-filter.tsx).
        applied={{ q: query.q, status: query.status, verified: query.verified }}
      >
        <Field
          label={t("users:filters.search")}
          name="q"
          type="search"
          defaultValue={query.q}
          placeholder={t("users:filters.searchPlaceholder")}
          className="w-full sm:w-64"
        />
        <RoleFilter roles={roles} chosen={query.role} />
        <Select label={t("users:filters.status")} name="status" defaultValue={query.status}>
          <option value="">{t("users:filters.anyStatus")}</option>
          <option value="active">{t("users:status.active")}</option>
          <option value="disabled">{t("users:status.disabled")}</option>
        </Select>
        <Select label={t("users:filters.verified")} name="verified" defaultValue={query.verified}>
          <option value="">{t("users:filters.any")}</option>
          <option value="yes">{t("users:verified.yes")}</option>
          <option value="no">{t("users:verified.no")}</option>
        </Select>
        <Select label={t("users:filters.pageSize")} name="size" defaultValue={String(query.size)}>
          {PAGE_SIZES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
        {query.created ? <input type="hidden" name="created" value={query.created} /> : null}
        <input type="hidden" name="sort" value={query.sort} />
        <input type="hidden" name="dir" value={query.dir} />
      </FilterForm>
      <FilterChips chips={chips} />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "users");
