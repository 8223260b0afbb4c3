import type { TFunction } from "i18next";
import { useRef, useState } from "react";
import type { ShouldRevalidateFunctionArgs } from "react-router";
import { Form, Link, useNavigation } from "react-router";
import { z } from "zod";
import { accessOf } from "../../access/explain.server";
import { mayOnTeam, mayOnUser } from "../../access/reach.server";
import { roleGrants } from "../../access/role-cache.server";
import { permissionsOf } from "../../access/role-can";
import { roleLabel, roleNamesIn } from "../../access/role-labels";
import { assignableRoles } from "../../access/rules.server";
import { auditActionText } from "../../audit/action-text";
import { revokeApiTokenSchema } from "../../auth/api-token-schemas";
import { apiTokensShownTo, revokeUserApiToken } from "../../auth/api-tokens.server";
import { refuseWhileImpersonating, requireSomewhere } from "../../auth/guard.server";
import { mayViewAs, startImpersonation } from "../../auth/impersonation.server";
import { handleIntents } from "../../auth/intents.server";
import { getSessionUser, type SessionUser } from "../../auth/session.server";
import { hasTwoFactor } from "../../auth/two-factor.server";
import { isPreview } from "../../components/access/change-preview";
import { useFormat } from "../../components/format";
import { useIsPending } from "../../components/forms/use-is-pending";
import { pageTitle } from "../../components/page-title";
import { taskLabel } from "../../components/tasks/task-text";
import { teamRoleText } from "../../components/teams/team-role";
import { Button } from "../../components/ui/button";
import { Card, EmptyState, FormError } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { DangerRow, DangerZone } from "../../components/ui/danger-zone";
import { linkVariants } from "../../components/ui/link";
import { useFocusIfLost } from "../../components/use-focus-if-lost";
import { PREVIEW_GRANT } from "../../components/users/grant-role-form";
import { StatusBadge, TaskStatusBadge, VerifiedBadge } from "../../components/users/user-badges";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { NotFound } from "../../domain-errors";
import { pageRefusal, redirectWithToast, refused } from "../../http/form.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { teamChoices } from "../../teams/teams.server";
import { disableAccount, editAccount, resetAccountTwoFactor } from "../../users/account-actions.server";
import { userActivity } from "../../users/detail.server";
import { grantRole, listGrants, previewGrant, revokeGrant } from "../../users/grants.server";
import { grantInTeamSchema, updateUserSchema } from "../../users/user-schemas";
import { deleteUser, getUser, revokeSession, sendAccountLink, setUserStatus } from "../../users/users.server";
import type { Route } from "./+types/route";
import { AccessCard } from "./access-card";
import { AccountForm } from "./account-form";
import { ActionsMenu } from "./actions-menu";
import { ApiTokensCard } from "./api-tokens-card";
import { type Danger, DangerDialogs } from "./danger-dialogs";

const idSchema = z.string().uuid();
const isSelfOf = (actor: { id: string }, id: string) => actor.id === id;
const inWords = <G extends { role: { id: string; label: string } }>(
  g: G,
  labels: Map<string, string>,
): G => ({
  ...g,
  role: { ...g.role, label: labels.get(g.role.id) ?? g.role.label },
});
/** The grant form is short: a field's refusal shows at the top of the card. */
const firstError = (errors?: Record<string, string[] | string | undefined>) => {
  const first = Object.values(errors ?? {})[0];
  return (Array.isArray(first) ? first[0] : first) ?? null;
};

function missing(t: TFunction) {
  return pageRefusal(t, "users.notFound", 404);
}

/** A grant's preview writes nothing: the page need not load again after one. */
export function shouldRevalidate({ formData, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return isPreview(formData) ? false : defaultShouldRevalidate;
}

export async function loader(args: Route.LoaderArgs) {
  // Out of the reader's reach is the same 404 as nobody (decision 044).
  const actor = await requireSomewhere(args, "user.read");
  const id = idSchema.safeParse(args.params.id);
  const user = id.success && (await mayOnUser(actor, "user.read", id.data)) ? await getUser(id.data) : null;
  if (!user) throw missing(getT(args.context));
  const [mayUpdate, mayDelete] = await Promise.all([
    mayOnUser(actor, "user.update", user.id),
    mayOnUser(actor, "user.delete", user.id),
  ]);
  const t = getT(args.context);
  const [activity, grants, assignable, viewAs, twoFactor, apiTokens, access, personGrants, teamOptions] =
    await Promise.all([
      userActivity(actor, user.id, t),
      roleGrants(),
      assignableRoles(actor),
      mayViewAs(actor, user.id),
      actor.isSuperAdmin ? hasTwoFactor(user.id) : false,
      apiTokensShownTo(actor, user.id),
      accessOf(user.id, user.status === "active"),
      listGrants(actor, user.id),
      mayUpdate ? teamChoices() : [],
    ]);
  const assignableIds = new Set(assignable.map((r) => r.id));
  const labels = roleNamesIn(t, grants.values());
  return {
    user,
    ...activity,
    isSelf: actor.id === user.id,
    roles: [...grants.values()].map((r) => ({
      id: r.id,
      name: r.name,
      label: r.label,
      assignable: assignableIds.has(r.id),
      description: r.description,
      permissions: permissionsOf(r),
    })),
    apiTokens,
    // Roles as the reader's language says them.
    access: access.map((a) => ({ ...a, grants: a.grants.map((g) => inWords(g, labels)) })),
    teamGrants: personGrants.filter((g) => g.team !== null).map((g) => inWords(g, labels)),
    // Within a team the viewer reaches; the server checks the role against what they hold there.
    grantForm:
      mayUpdate && !isSelfOf(actor, user.id)
        ? {
            roles: [...grants.values()]
              .filter((r) => !r.all)
              .map((r) => ({ name: r.name, label: labels.get(r.id) ?? r.label })),
            teams: teamOptions.filter((team) => mayOnTeam(actor, "user.update", team.id)),
          }
        : null,
    may: {
      update: mayUpdate,
      delete: mayDelete,
      viewAs,
      // One's own goes through Settings.
      resetTwoFactor: actor.isSuperAdmin && twoFactor && actor.id !== user.id,
    },
  };
}

export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const id = idSchema.safeParse(args.params.id);
  const t = getT(args.context);
  if (!id.success) throw missing(t);
  const self = `/dashboard/users/${id.data}`;
  const done = (message: string, to = self, undo?: string) =>
    redirectWithToast(to, { kind: "success", message, undo });
  // "Sent" only when the provider took it; the link never comes back to the admin.
  const sendLink = async (actor: SessionUser, kind: "reset" | "verification", intent: string) => {
    const sent = await sendAccountLink(actor, { id: id.data, kind }, args);
    if (!sent.ok) return refused(t, "users.alreadyVerified", 400, intent);
    const { email, mail } = sent;
    if (!mail)
      return redirectWithToast(self, { kind: "warning", message: t("users:toast.linkNotDue", { email }) });
    if (!mail.sent)
      return redirectWithToast(self, {
        kind: "warning",
        message:
          mail.why === "refused"
            ? t("users:toast.linkNotSent.refused", { email, problem: mail.problem })
            : t("users:toast.linkNotSent.no_provider", { email }),
      });
    return done(
      kind === "reset" ? t("users:toast.resetSent", { email }) : t("users:toast.verificationSent", { email }),
    );
  };
  // While viewing as someone, their own record is theirs alone.
  const viewer = await getSessionUser(args);
  if (viewer?.id === id.data) refuseWhileImpersonating(args, viewer);
  return handleIntents(
    args,
    {
      update: {
        permission: "user.update",
        schema: updateUserSchema,
        run: async ({ actor, input }) => {
          const { message, changed, undo } = await editAccount(actor, { id: id.data, ...input }, args, t);
          if (!changed) return redirectWithToast(self, { kind: "info", message });
          return done(message, self, undo);
        },
      },
      disable: {
        permission: "user.update",
        run: async ({ actor }) => {
          const { undo } = await disableAccount(actor, { id: id.data }, args);
          return done(t("users:toast.disabled"), self, undo);
        },
      },
      enable: {
        permission: "user.update",
        run: async ({ actor }) => {
          await setUserStatus(actor, { id: id.data, status: "active" }, args);
          return done(t("users:toast.enabled"));
        },
      },
      "revoke-session": {
        permission: "user.update",
        run: async ({ actor, form }) => {
          await revokeSession(actor, { userId: id.data, handle: sessionHandleIn(form) }, args);
          return done(t("users:toast.sessionRevoked"));
        },
      },
      "revoke-api-token": {
        permission: "user.update",
        schema: revokeApiTokenSchema,
        run: async ({ actor, input }) => {
          if (actor.id === id.data) refuseWhileImpersonating(args, actor);
          await revokeUserApiToken(actor, { userId: id.data, id: input.apiToken }, args);
          return done(t("users:toast.apiTokenRevoked"));
        },
      },
      "send-reset": {
        permission: "user.update",
        run: ({ actor, intent }) => sendLink(actor, "reset", intent),
      },
      "resend-verification": {
        permission: "user.update",
        run: ({ actor, intent }) => sendLink(actor, "verification", intent),
      },
      "view-as": {
        run: async ({ actor }) => {
          refuseWhileImpersonating(args, actor);
          const { name } = await startImpersonation(actor, { userId: id.data }, args);
          return redirectWithToast("/dashboard", {
            kind: "success",
            message: t("users:toast.viewingAs", { name }),
          });
        },
      },
      "reset-two-factor": {
        permission: "user.update",
        run: async ({ actor }) => {
          refuseWhileImpersonating(args, actor);
          const { email, mail } = await resetAccountTwoFactor(actor, { id: id.data }, args);
          return done(
            mail.sent
              ? t("users:toast.twoFactorReset", { email })
              : t("users:toast.twoFactorResetMailFailed"),
          );
        },
      },
      "grant-role": {
        permission: "user.update",
        schema: grantInTeamSchema,
        run: async ({ actor, input }) => {
          const expiresAt = input.until ? `${input.until}T23:59:59.999Z` : undefined;
          const grant = await grantRole(
            actor,
            id.data,
            { role: input.role, team: input.team, expiresAt },
            args,
          );
          return done(
            t("users:access.toast.granted", {
              role: roleLabel(t, { name: grant.role.name, label: grant.role.label }),
              team: grant.team?.name ?? "",
            }),
          );
        },
      },
      // What the grant form's choice would give, before it is sent (grant-role-form.tsx).
      [PREVIEW_GRANT]: {
        permission: "user.update",
        schema: grantInTeamSchema,
        run: async ({ actor, input }) => ({
          // The shape of every answer here, so the page's own reading of actionData holds.
          ok: true as const,
          intent: PREVIEW_GRANT,
          errors: {} as Record<string, string>,
          formError: null,
          preview: await previewGrant(actor, id.data, { role: input.role, team: input.team }),
        }),
      },
      "revoke-grant": {
        permission: "user.update",
        run: async ({ actor, form }) => {
          const grant = idSchema.safeParse(form.get("grant"));
          if (!grant.success) throw new NotFound("access.grant.gone");
          await revokeGrant(actor, id.data, grant.data, args);
          return done(t("users:access.toast.revoked"));
        },
      },
      delete: {
        permission: "user.delete",
        run: async ({ actor }) => {
          await deleteUser(actor, { id: id.data }, args);
          return done(t("users:toast.deleted"), "/dashboard/users");
        },
      },
    },
    { onUser: id.data },
  );
}

/** The same 404 as one that ended meanwhile. */
function sessionHandleIn(form: FormData) {
  const handle = z.string().min(1).max(100).safeParse(form.get("session"));
  if (!handle.success) throw new NotFound("users.sessionGone");
  return handle.data;
}

const actionsFormId = "account-actions";
const dangerFormId = "account-danger";
const DANGEROUS = new Set(["disable", "delete", "reset-two-factor"]);

export default function UserPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const {
    user,
    teams,
    sessions,
    audit,
    tasks,
    roles,
    may,
    isSelf,
    apiTokens,
    access,
    teamGrants,
    grantForm,
  } = loaderData;
  const navigation = useNavigation();
  const grantPending = navigation.formData?.get("intent") === "grant-role" ? "grant" : null;
  const revokePending =
    navigation.formData?.get("intent") === "revoke-grant" ? String(navigation.formData.get("grant")) : null;
  const accessIntent = actionData?.intent === "grant-role" || actionData?.intent === "revoke-grant";
  const revokingToken =
    navigation.formData?.get("intent") === "revoke-api-token"
      ? String(navigation.formData.get("apiToken"))
      : null;
  const enabling = useIsPending({ intent: "enable" });
  const enable = useRef<HTMLButtonElement>(null);
  useFocusIfLost(enable, user.status);
  const disabling = useIsPending({ intent: "disable" });
  const deleting = useIsPending({ intent: "delete" });
  const resettingTwoFactor = useIsPending({ intent: "reset-two-factor" });
  const sendingReset = useIsPending({ intent: "send-reset" });
  const resendingVerification = useIsPending({ intent: "resend-verification" });
  const viewingAs = useIsPending({ intent: "view-as" });
  // A refusal shows beside what was used: the header's menu, or the section's own button.
  const [actedFrom, setActedFrom] = useState<"menu" | "page">("page");
  const [danger, setDanger] = useState<Danger | null>(null);
  const dangerReturn = useRef<HTMLElement | null>(null);
  const menuTrigger = useRef<HTMLButtonElement>(null);
  const openDanger = (kind: Danger, from: HTMLElement | null, where: "menu" | "page") => {
    dangerReturn.current = from;
    setActedFrom(where);
    setDanger(kind);
  };
  const menuError =
    actedFrom === "menu" && actionData?.intent !== "update" ? (actionData?.formError ?? null) : null;
  const buttonError =
    actedFrom === "page" && actionData?.intent !== "update" && actionData?.intent !== "view-as"
      ? actionData?.formError
      : null;
  const dangerError = buttonError && DANGEROUS.has(String(actionData?.intent)) ? buttonError : null;
  const actionsError = buttonError && !dangerError ? buttonError : null;
  const signedOut =
    sessions === null
      ? t("users:page.disableDescriptionEverywhere", { name: user.name, email: user.email })
      : t("users:page.disableDescription", { name: user.name, email: user.email, count: sessions.length });
  const mayDisable = may.update && !isSelf && user.status === "active";
  const mayDelete = may.delete && !isSelf;
  const dangerous = (may.update || may.delete) && (isSelf || mayDisable || may.resetTwoFactor || mayDelete);
  const offered = {
    enable: may.update && !isSelf && user.status === "disabled" && !user.managedBy,
    sendReset: may.update && user.status === "active",
    resendVerification: may.update && !user.email_verified,
    viewAs: may.viewAs,
    activity: audit !== null,
    disable: mayDisable,
    resetTwoFactor: may.resetTwoFactor,
    delete: mayDelete,
  };
  const everydayActions = offered.enable || offered.sendReset || offered.resendVerification;
  const dangerButton = (kind: Danger) => (event: React.MouseEvent<HTMLButtonElement>) =>
    openDanger(kind, event.currentTarget, "page");
  return (
    <ViewingAsLock lock={{ ownRecord: isSelf }} className="flex max-w-4xl flex-col gap-6">
      <div>
        <Link to="/dashboard/users" className={cn(linkVariants({ variant: "quiet" }), "text-sm")}>
          ← {t("users:list.title")}
        </Link>
        <div className="mt-1 flex flex-wrap items-start justify-between gap-3">
          <h1 className="min-w-0 break-words text-2xl font-semibold">{user.name}</h1>
          <ActionsMenu
            user={user}
            offered={offered}
            triggerRef={menuTrigger}
            onDanger={(kind) => openDanger(kind, menuTrigger.current, "menu")}
            onAct={() => setActedFrom("menu")}
          />
        </div>
        <div className="mt-1 flex flex-wrap items-center gap-2 text-sm text-muted-foreground">
          <span className="break-all">{user.email}</span>
          <span data-testid="user-status">
            <StatusBadge status={user.status} />
          </span>
          <VerifiedBadge verified={user.email_verified} />
          <span data-testid="last-sign-in">
            {user.last_login_at
              ? t("users:page.lastSignIn", { when: formatDateTime(user.last_login_at) })
              : t("users:page.neverSignedIn")}
          </span>
        </div>
        {menuError ? (
          <div className="mt-3">
            <FormError message={menuError} />
          </div>
        ) : null}
      </div>

      {/* Only notes where a refusal should show; every control inside is its own button. */}
      <div className="contents" onClickCapture={() => setActedFrom("page")}>
        <Card title={t("users:page.account")}>
          {user.managedBy ? (
            <p className="mb-3 text-sm text-muted-foreground" data-testid="managed-by">
              {t("messages:directory.managed", { directory: user.managedBy })}
              {user.department ? ` ${t("users:page.department", { department: user.department })}` : null}
            </p>
          ) : null}
          <AccountForm
            key={user.updated_at}
            user={user}
            roles={roles}
            mayUpdate={may.update && !user.managedBy}
          />
        </Card>

        {may.viewAs ? (
          <Card title={t("users:viewAs.title")}>
            {actedFrom === "page" && actionData?.intent === "view-as" && actionData.formError ? (
              <FormError message={actionData.formError} />
            ) : null}
            <Form method="post" className="flex flex-wrap items-center gap-3">
              <p className="text-sm text-muted-foreground">
                {t("users:viewAs.description", { name: user.name })}
              </p>
              <Button variant="secondary" name="intent" value="view-as" pending={viewingAs}>
                {t("users:viewAs.button", { name: user.name })}
              </Button>
            </Form>
          </Card>
        ) : null}

        {everydayActions ? (
          <Card title={t("users:page.signInHelp")}>
            {actionsError ? <FormError message={actionsError} /> : null}
            <Form method="post" id={actionsFormId} />
            <div className="flex flex-wrap gap-3">
              {may.update && !isSelf && user.status === "disabled" && !user.managedBy ? (
                <Button
                  ref={enable}
                  variant="secondary"
                  form={actionsFormId}
                  name="intent"
                  value="enable"
                  pending={enabling}
                >
                  {t("users:page.enable")}
                </Button>
              ) : null}
              {may.update && user.status === "active" ? (
                <Button
                  variant="secondary"
                  form={actionsFormId}
                  name="intent"
                  value="send-reset"
                  pending={sendingReset}
                >
                  {t("users:page.sendReset")}
                </Button>
              ) : null}
              {may.update && !user.email_verified ? (
                <Button
                  variant="secondary"
                  form={actionsFormId}
                  name="intent"
                  value="resend-verification"
                  pending={resendingVerification}
                >
                  {t("users:page.resendVerification")}
                </Button>
              ) : null}
            </div>
          </Card>
        ) : null}

        <AccessCard
          name={user.name}
          access={access}
          teamGrants={teamGrants}
          grantForm={grantForm}
          error={accessIntent ? (actionData?.formError ?? firstError(actionData?.errors)) : null}
          pending={grantPending ?? revokePending}
        />

        <Card title={t("users:page.teams")}>
          {teams.length === 0 ? (
            <EmptyState>{t("users:page.noTeams")}</EmptyState>
          ) : (
            <ul className="flex flex-col gap-1 text-sm">
              {teams.map((team) => (
                <li key={team.id}>
                  <Link to={`/dashboard/teams/${team.id}`} className={linkVariants({ variant: "quiet" })}>
                    {team.name}
                  </Link>{" "}
                  ({teamRoleText(t, team.team_role)})
                </li>
              ))}
            </ul>
          )}
        </Card>

        {sessions ? (
          <Card title={t("users:page.sessions")}>
            {sessions.length === 0 ? (
              <EmptyState>{t("users:page.noSessions")}</EmptyState>
            ) : (
              <ul className="flex flex-col gap-2 text-sm" data-testid="user-sessions">
                {sessions.map((s) => {
                  const lastSeen = formatDateTime(s.last_seen_at);
                  return (
                    <li key={s.handle} className="flex flex-wrap items-center justify-between gap-2">
                      <span className="min-w-0 break-words">
                        {t("users:page.session", {
                          device: s.device,
                          ip: s.ip ?? t("users:page.unknownIp"),
                          lastSeen,
                        })}
                      </span>
                      {may.update ? (
                        <Form method="post">
                          <input type="hidden" name="session" value={s.handle} />
                          <Button
                            variant="secondary"
                            name="intent"
                            value="revoke-session"
                            aria-label={t("users:page.revokeSessionLabel", { device: s.device, lastSeen })}
                          >
                            {t("users:page.revokeSession")}
                          </Button>
                        </Form>
                      ) : null}
                    </li>
                  );
                })}
              </ul>
            )}
          </Card>
        ) : null}

        {apiTokens ? <ApiTokensCard tokens={apiTokens} pendingId={revokingToken} /> : null}

        <Card title={t("users:page.tasks")}>
          {tasks.length === 0 ? (
            <EmptyState>{t("users:page.noTasks")}</EmptyState>
          ) : (
            <ul className="flex flex-col gap-1 text-sm" data-testid="user-tasks">
              {tasks.map((task) => (
                <li key={task.id} className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{taskLabel(t, task.type)}</span>{" "}
                  <TaskStatusBadge status={task.status} />{" "}
                  {t("users:page.taskStarted", { when: formatDateTime(task.created_at) })}
                  {task.completed_at
                    ? ` · ${t("users:page.taskFinished", { when: formatDateTime(task.completed_at) })}`
                    : ""}
                </li>
              ))}
            </ul>
          )}
        </Card>

        {audit ? (
          <Card title={t("users:page.activity")}>
            <Link
              to={`/dashboard/logs?person=${user.id}`}
              className={cn(linkVariants(), "mb-2 inline-block text-sm")}
            >
              {t("users:page.allActivity")}
            </Link>
            {audit.length === 0 ? (
              <EmptyState>{t("users:page.noActivity")}</EmptyState>
            ) : (
              <ul className="flex flex-col gap-1 text-sm" data-testid="user-activity">
                {audit.map((a) => (
                  <li key={a.id}>
                    {auditActionText(t, a.action)}{" "}
                    {t("users:page.activityBy", {
                      who: a.impersonator_email
                        ? t("users:page.activityAs", { by: a.impersonator_email, as: a.actor_email })
                        : (a.actor_email ?? t("users:page.system")),
                    })}{" "}
                    · {formatDateTime(a.created_at)}
                  </li>
                ))}
              </ul>
            )}
          </Card>
        ) : null}

        {dangerous ? (
          <DangerZone title={t("users:page.dangerZone")}>
            {dangerError ? <FormError message={dangerError} /> : null}
            {isSelf ? (
              <p className="py-3 text-sm text-muted-foreground last:pb-0">{t("users:page.notSelf")}</p>
            ) : null}
            {mayDisable ? (
              <DangerRow
                title={t("users:page.disable")}
                description={t("users:page.disableSummary")}
                action={
                  <Button
                    type="button"
                    variant="secondary"
                    pending={disabling}
                    onClick={dangerButton("disable")}
                  >
                    {t("users:page.disable")}
                  </Button>
                }
              />
            ) : null}
            {may.resetTwoFactor ? (
              <DangerRow
                title={t("users:page.resetTwoFactor")}
                description={t("users:page.resetTwoFactorSummary")}
                action={
                  <Button
                    type="button"
                    variant="secondary"
                    pending={resettingTwoFactor}
                    onClick={dangerButton("reset-two-factor")}
                  >
                    {t("users:page.resetTwoFactor")}
                  </Button>
                }
              />
            ) : null}
            {mayDelete ? (
              <DangerRow
                title={t("users:page.deleteAction")}
                description={t("users:page.deleteSummary")}
                action={
                  <Button
                    type="button"
                    variant="destructive"
                    pending={deleting}
                    onClick={dangerButton("delete")}
                  >
                    {t("users:page.deleteButton", { name: user.name })}
                  </Button>
                }
              />
            ) : null}
          </DangerZone>
        ) : null}
      </div>
      <Form method="post" id={dangerFormId} />
      <DangerDialogs
        open={danger}
        onClose={() => setDanger(null)}
        returnFocusTo={dangerReturn}
        formId={dangerFormId}
        user={user}
        signedOut={signedOut}
      />
    </ViewingAsLock>
  );
}

export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData?.user.name ? { name: loaderData.user.name } : "user");
