import { Trans } from "react-i18next";
import { Form } from "react-router";
import { acceptInviteSchema } from "../auth/account-schemas";
import { breachedField } from "../auth/breached-passwords.server";
import { acceptInvitation, describeInvitation } from "../auth/invitations.server";
import { completeSignIn } from "../auth/sign-in.server";
import { AuthCard } from "../components/auth/auth-card";
import { LinkProblem } from "../components/auth/link-problem";
import { FormErrors, PasswordField, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { invalidSubmission, parseSubmission } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { refusal } from "../http/responses";
import { toastCookie } from "../http/toast.server";
import { getT } from "../i18n/i18n.server";
import { say } from "../i18n/message";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/accept-invite";

export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const invitation = await describeInvitation(token);
  if (!invitation.ok)
    return refusal(400, "invalid_request", {
      ok: false as const,
      reason: invitation.reason,
      token: "",
      email: "",
    });
  return { ok: true as const, reason: null, token, email: invitation.email };
}

export async function action(args: Route.ActionArgs) {
  const submission = parseSubmission(await readForm(args.request), acceptInviteSchema, getT(args.context));
  if (submission.status !== "success") return invalidSubmission(submission);
  const breach = await breachedField(args, submission, submission.value.password);
  if (breach.refusal) return breach.refusal;
  const outcome = await acceptInvitation(args, submission.value.token, submission.value);
  if (!outcome.ok)
    return refusal(400, "invalid_request", {
      ok: false as const,
      reason: outcome.reason,
      errors: {},
      formError: null,
    });
  const response = await completeSignIn(args, outcome.userId, { method: "invite", factors: 1 });
  response.headers.append(
    "Set-Cookie",
    await toastCookie({
      kind: breach.warn ? "info" : "success",
      message: [
        getT(args.context)("auth:invite.welcome"),
        breach.warn ? say(getT(args.context), "auth.passwordBreachedWarning") : "",
      ]
        .filter(Boolean)
        .join(" "),
    }),
  );
  throw response;
}

export default function AcceptInvite({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: acceptInviteSchema });
  const pending = useIsPending();
  const reason = loaderData.ok
    ? actionData && "reason" in actionData
      ? actionData.reason
      : null
    : loaderData.reason;
  if (reason) return <LinkProblem reason={reason} kind="invite" />;
  return (
    <AuthCard title={t("auth:invite.title")}>
      <p className="mt-2 text-sm text-muted-foreground">
        <Trans
          i18nKey="auth:invite.joiningAs"
          values={{ email: loaderData.email }}
          components={{ strong: <strong /> }}
        />
      </p>
      <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(form)}>
        <input type="hidden" name={fields.token.name} value={loaderData.token} />
        <TextField meta={fields.name} label={t("auth:fields.name")} autoComplete="name" />
        <PasswordField meta={fields.password} label={t("auth:fields.password")} autoComplete="new-password" />
        <PasswordField
          meta={fields.confirm}
          label={t("auth:fields.repeatPassword")}
          autoComplete="new-password"
        />
        {/* The token is no field anyone can fix: a bad one is said about the link. */}
        <FormError message={fields.token.errors ? t("auth:linkNotValid") : null} />
        <FormErrors form={form} />
        <Button pending={pending}>{t("auth:invite.submit")}</Button>
      </Form>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "acceptInvite");
