import { data, Form, Link, useNavigation } from "react-router";
import { z } from "zod";
import { can } from "../access/check";
import { refuseWhileImpersonating, requirePermission } from "../access/guard.server";
import { handleIntents } from "../access/intents.server";
import { roleGrants } from "../access/role-cache.server";
import { assignableRoles } from "../access/rules.server";
import { revokeApiTokenSchema } from "../auth/api-token-schemas";
import { listApiTokens, revokeUserApiToken } from "../auth/api-tokens.server";
import { mayViewAs, startImpersonation } from "../auth/impersonation.server";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { hasTwoFactor, resetTwoFactor } from "../auth/two-factor.server";
import { useFormat } from "../components/format";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { ConfirmDialog } from "../components/ui/alert-dialog";
import { Button } from "../components/ui/button";
import { Card, EmptyState, FormError } from "../components/ui/card";
import { AccountForm } from "../components/users/account-form";
import { ApiTokensCard } from "../components/users/api-tokens-card";
import { StatusBadge, TaskStatusBadge, VerifiedBadge } from "../components/users/user-badges";
import { NotFound } from "../domain-errors";
import { baseUrl } from "../env.server";
import { redirectWithToast, refused } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { sendTwoFactorResetEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { userActivity } from "../users/detail.server";
import { updateUserSchema } from "../users/user-schemas";
import {
  deleteUser,
  getUser,
  revokeSession,
  sendAccountLink,
  setUserStatus,
  updateUser,
} from "../users/users.server";
import type { Route } from "./+types/dashboard.users.$id";

const idSchema = z.string().uuid();

function missing() {
  return data({ message: "This user does not exist." }, { status: 404 });
}

export async function loader(args: Route.LoaderArgs) {
  const actor = await requirePermission(args, "user.read");
  const id = idSchema.safeParse(args.params.id);
  const user = id.success ? await getUser(id.data) : null;
  if (!user) throw missing();
  const mayUpdate = can(actor, "user.update");
  const [activity, grants, assignable, viewAs, twoFactor, apiTokens] = await Promise.all([
    userActivity(actor, user.id),
    roleGrants(),
    assignableRoles(actor),
    mayViewAs(actor, user.id),
    actor.isSuperAdmin ? hasTwoFactor(user.id) : false,
    mayUpdate ? listApiTokens(user.id) : null,
  ]);
  const assignableIds = new Set(assignable.map((r) => r.id));
  return {
    user,
    ...activity,
    isSelf: actor.id === user.id,
    roles: [...grants.values()].map((r) => ({
      id: r.id,
      label: r.label,
      assignable: assignableIds.has(r.id),
    })),
    apiTokens,
    may: {
      update: mayUpdate,
      delete: can(actor, "user.delete"),
      viewAs,
      // A super admin resets someone else's two-factor (a lost phone); one's own goes through Settings.
      resetTwoFactor: actor.isSuperAdmin && twoFactor && actor.id !== user.id,
    },
  };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const id = idSchema.safeParse(args.params.id);
  if (!id.success) throw missing();
  const self = `/dashboard/users/${id.data}`;
  const done = (message: string, to = self) => redirectWithToast(to, { kind: "success", message });
  const sendLink = async (actor: SessionUser, kind: "reset" | "verification", intent: string) => {
    const sent = await sendAccountLink(actor, { id: id.data, kind }, args);
    if (!sent.ok) return refused("This address is already verified.", 400, intent);
    const what = kind === "reset" ? "A password reset link" : "A new verification link";
    return done(`${what} was sent to ${sent.email}.`);
  };
  // While viewing as someone, their own record (email, sessions, reset link) is theirs alone.
  const viewer = await getSessionUser(args);
  if (viewer?.id === id.data) refuseWhileImpersonating(args.request, viewer);
  return handleIntents(args, {
    update: {
      permission: "user.update",
      schema: updateUserSchema,
      run: async ({ actor, input }) => {
        await updateUser(actor, { id: id.data, ...input }, args);
        return done("Saved.");
      },
    },
    disable: {
      permission: "user.update",
      run: async ({ actor }) => {
        await setUserStatus(actor, { id: id.data, status: "disabled" }, args);
        return done("User disabled and signed out.");
      },
    },
    enable: {
      permission: "user.update",
      run: async ({ actor }) => {
        await setUserStatus(actor, { id: id.data, status: "active" }, args);
        return done("User enabled.");
      },
    },
    "revoke-session": {
      permission: "user.update",
      run: async ({ actor, form }) => {
        await revokeSession(actor, { userId: id.data, handle: sessionHandleIn(form) }, args);
        return done("Session signed out.");
      },
    },
    "revoke-api-token": {
      permission: "user.update",
      schema: revokeApiTokenSchema,
      run: async ({ actor, input }) => {
        if (actor.id === id.data) refuseWhileImpersonating(args.request, actor);
        await revokeUserApiToken(actor, { userId: id.data, id: input.apiToken }, args);
        return done("API token revoked.");
      },
    },
    "send-reset": { permission: "user.update", run: ({ actor, intent }) => sendLink(actor, "reset", intent) },
    "resend-verification": {
      permission: "user.update",
      run: ({ actor, intent }) => sendLink(actor, "verification", intent),
    },
    // Super admins only (startImpersonation checks it, and every other rule of "View as").
    "view-as": {
      run: async ({ actor }) => {
        refuseWhileImpersonating(args.request, actor);
        const { name } = await startImpersonation(actor, { userId: id.data }, args);
        return redirectWithToast("/dashboard", {
          kind: "success",
          message: `You are now viewing as ${name}.`,
        });
      },
    },
    "reset-two-factor": {
      permission: "user.update",
      run: async ({ actor }) => {
        refuseWhileImpersonating(args.request, actor);
        const account = await resetTwoFactor(actor, { id: id.data }, args);
        const mailed = await trySend(args, { type: "two-factor-reset", to: account.email }, () =>
          sendTwoFactorResetEmail({
            to: account.email,
            name: account.name,
            settingsUrl: `${baseUrl()}/dashboard/settings#two-factor`,
          }),
        );
        return done(
          mailed
            ? `Two-factor authentication was reset. ${account.email} was told by email.`
            : "Two-factor authentication was reset, but the email to the account failed.",
        );
      },
    },
    delete: {
      permission: "user.delete",
      run: async ({ actor }) => {
        await deleteUser(actor, { id: id.data }, args);
        return done("User deleted.", "/dashboard/users");
      },
    },
  });
}

/** A malformed handle names no session: the same 404 as one that ended meanwhile. */
function sessionHandleIn(form: FormData) {
  const handle = z.string().min(1).max(100).safeParse(form.get("session"));
  if (!handle.success) throw new NotFound("That session no longer exists.");
  return handle.data;
}

const statusFormId = "account-status";

export default function UserPage({ loaderData, actionData }: Route.ComponentProps) {
  const { formatDateTime } = useFormat();
  const { user, teams, sessions, audit, tasks, roles, may, isSelf, apiTokens } = loaderData;
  const navigation = useNavigation();
  const revokingToken =
    navigation.formData?.get("intent") === "revoke-api-token"
      ? String(navigation.formData.get("apiToken"))
      : null;
  const enabling = useIsPending({ intent: "enable" });
  const disabling = useIsPending({ intent: "disable" });
  const deleting = useIsPending({ intent: "delete" });
  const resettingTwoFactor = useIsPending({ intent: "reset-two-factor" });
  const sendingReset = useIsPending({ intent: "send-reset" });
  const resendingVerification = useIsPending({ intent: "resend-verification" });
  const viewingAs = useIsPending({ intent: "view-as" });
  // The account form shows its own refusals; the buttons' refusals are shown above them.
  const otherError =
    actionData?.intent !== "update" && actionData?.intent !== "view-as" ? actionData?.formError : null;
  const signedOut =
    sessions === null
      ? "signed out everywhere at once"
      : `signed out of ${sessions.length} ${sessions.length === 1 ? "session" : "sessions"} at once`;
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <div>
        <Link to="/dashboard/users" className="text-sm text-indigo-700 hover:underline dark:text-indigo-300">
          ← Users
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">{user.name}</h1>
        <div className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
          <span className="break-all">{user.email}</span>
          <span data-testid="user-status">
            <StatusBadge status={user.status} />
          </span>
          <VerifiedBadge verified={user.email_verified} />
          <span>last sign-in {formatDateTime(user.last_login_at)}</span>
        </div>
      </div>

      <Card title="Account">
        <AccountForm key={user.updated_at} user={user} roles={roles} mayUpdate={may.update} />
      </Card>

      {may.viewAs ? (
        <Card title="View as">
          {actionData?.intent === "view-as" && actionData.formError ? (
            <FormError message={actionData.formError} />
          ) : null}
          <Form method="post" className="flex flex-wrap items-center gap-3">
            <p className="text-sm text-slate-700 dark:text-slate-300">
              See the dashboard as {user.name} sees it, for up to 30 minutes. Their password, email and
              sign-in settings stay locked, and everything you do is recorded under both names.
            </p>
            <Button variant="secondary" name="intent" value="view-as" pending={viewingAs}>
              View as {user.name}
            </Button>
          </Form>
        </Card>
      ) : null}

      {may.update || may.delete ? (
        <Card title="Status">
          {otherError ? <FormError message={otherError} /> : null}
          <Form method="post" id={statusFormId} />
          <div className="flex flex-wrap gap-3">
            {may.update && !isSelf && user.status === "active" ? (
              <ConfirmDialog
                trigger={
                  <Button type="button" variant="secondary" pending={disabling}>
                    Disable account
                  </Button>
                }
                title={`Disable ${user.name}'s account?`}
                description={`${user.name} (${user.email}) will be ${signedOut} and cannot sign in until the account is enabled again.`}
                actionLabel="Disable account"
                formId={statusFormId}
                value="disable"
              />
            ) : null}
            {may.update && !isSelf && user.status === "disabled" ? (
              <Button variant="secondary" form={statusFormId} name="intent" value="enable" pending={enabling}>
                Enable account
              </Button>
            ) : null}
            {may.delete && !isSelf ? (
              <ConfirmDialog
                trigger={
                  <Button type="button" variant="danger" pending={deleting}>
                    Delete {user.name}
                  </Button>
                }
                title={`Delete ${user.name}?`}
                description={`The account of ${user.name}, with their sessions and team memberships, is deleted. This cannot be undone.`}
                actionLabel="Delete account"
                confirmLabel="To confirm, type their email address"
                confirmText={user.email}
                formId={statusFormId}
                value="delete"
              />
            ) : null}
            {may.update && user.status === "active" ? (
              <Button
                variant="secondary"
                form={statusFormId}
                name="intent"
                value="send-reset"
                pending={sendingReset}
              >
                Send password reset link
              </Button>
            ) : null}
            {may.resetTwoFactor ? (
              <ConfirmDialog
                trigger={
                  <Button type="button" variant="secondary" pending={resettingTwoFactor}>
                    Reset two-factor authentication
                  </Button>
                }
                title={`Reset ${user.name}'s two-factor authentication?`}
                description={`${user.name} can then sign in with the password alone until setting it up again, and is told so by email.`}
                actionLabel="Reset two-factor"
                formId={statusFormId}
                value="reset-two-factor"
              />
            ) : null}
            {may.update && !user.email_verified ? (
              <Button
                variant="secondary"
                form={statusFormId}
                name="intent"
                value="resend-verification"
                pending={resendingVerification}
              >
                Resend verification link
              </Button>
            ) : null}
            {isSelf ? (
              <p className="text-sm text-slate-600 dark:text-slate-400">
                You cannot disable or delete your own account.
              </p>
            ) : null}
          </div>
        </Card>
      ) : null}

      <Card title="Teams">
        {teams.length === 0 ? (
          <EmptyState>Not a member of any team.</EmptyState>
        ) : (
          <ul className="flex flex-col gap-1 text-sm">
            {teams.map((t) => (
              <li key={t.id}>
                <Link
                  to={`/dashboard/teams/${t.id}`}
                  className="text-indigo-700 hover:underline dark:text-indigo-300"
                >
                  {t.name}
                </Link>{" "}
                ({t.team_role})
              </li>
            ))}
          </ul>
        )}
      </Card>

      {sessions ? (
        <Card title="Active sessions">
          {sessions.length === 0 ? (
            <EmptyState>No active sessions.</EmptyState>
          ) : (
            <ul className="flex flex-col gap-2 text-sm" data-testid="user-sessions">
              {sessions.map((s) => {
                const device = s.user_agent ?? "Unknown device";
                return (
                  <li key={s.handle} className="flex flex-wrap items-center justify-between gap-2">
                    <span className="min-w-0 break-words">
                      {device} · {s.ip ?? "unknown IP"} · last seen {formatDateTime(s.last_seen_at)}
                    </span>
                    {may.update ? (
                      <Form method="post">
                        <input type="hidden" name="session" value={s.handle} />
                        <Button
                          variant="secondary"
                          name="intent"
                          value="revoke-session"
                          aria-label={`Sign out the session on ${device}, last seen ${formatDateTime(s.last_seen_at)}`}
                        >
                          Sign out
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

      <Card title="Tasks">
        {tasks.length === 0 ? (
          <EmptyState>No background tasks.</EmptyState>
        ) : (
          <ul className="flex flex-col gap-1 text-sm" data-testid="user-tasks">
            {tasks.map((t) => (
              <li key={t.id} className="flex flex-wrap items-center gap-2">
                <code>{t.type}</code> <TaskStatusBadge status={t.status} /> started{" "}
                {formatDateTime(t.created_at)}
                {t.completed_at ? ` · finished ${formatDateTime(t.completed_at)}` : ""}
              </li>
            ))}
          </ul>
        )}
      </Card>

      {audit ? (
        <Card title="Recent activity">
          {audit.length === 0 ? (
            <EmptyState>No recorded activity.</EmptyState>
          ) : (
            <ul className="flex flex-col gap-1 text-sm">
              {audit.map((a) => (
                <li key={a.id}>
                  <code>{a.action}</code> by{" "}
                  {a.impersonator_email
                    ? `${a.impersonator_email} (as ${a.actor_email})`
                    : (a.actor_email ?? "system")}{" "}
                  · {formatDateTime(a.created_at)}
                </li>
              ))}
            </ul>
          )}
        </Card>
      ) : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData?.user.name ? { name: loaderData.user.name } : "user");
