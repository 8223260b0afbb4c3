import { Form } from "react-router";
import { resetPasswordSchema } from "../auth/account-schemas";
import { breachedField } from "../auth/breached-passwords.server";
import { resetPassword } from "../auth/password-reset.server";
import { inspectToken } from "../auth/tokens.server";
import { AuthCard } from "../components/auth/auth-card";
import { LinkProblem } from "../components/auth/link-problem";
import { FormErrors, PasswordField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { invalidSubmission, parseSubmission, redirectWithToast } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { refusal } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { say } from "../i18n/message";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/reset-password";

export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const check = await inspectToken(["reset-password", "set-password"], token);
  if (!check.ok)
    return refusal(400, "invalid_request", { ok: false as const, reason: check.reason, token: "" });
  // After a contested registration (email-verification.server): say why a password is asked for.
  const contested = new URL(request.url).searchParams.get("contested") === "1";
  return { ok: true as const, reason: null, token, contested };
}

export async function action(args: Route.ActionArgs) {
  const submission = parseSubmission(await readForm(args.request), resetPasswordSchema, getT(args.context));
  if (submission.status !== "success") return invalidSubmission(submission);
  const breach = await breachedField(args, submission, submission.value.password);
  if (breach.refusal) return breach.refusal;
  const outcome = await resetPassword(args, submission.value.token, submission.value.password);
  if (!outcome.ok)
    return refusal(400, "invalid_request", {
      ok: false as const,
      reason: outcome.reason,
      errors: {},
      formError: null,
    });
  const t = getT(args.context);
  return redirectWithToast("/login", {
    kind: breach.warn ? "info" : "success",
    message: breach.warn
      ? `${t("auth:reset.done")} ${say(t, "auth.passwordBreachedWarning")}`
      : t("auth:reset.done"),
  });
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: resetPasswordSchema });
  const pending = useIsPending();
  const reason = loaderData.ok
    ? actionData && "reason" in actionData
      ? actionData.reason
      : null
    : loaderData.reason;
  if (reason) return <LinkProblem reason={reason} kind="reset" />;
  return (
    <AuthCard title={t("auth:reset.title")}>
      {loaderData.ok && loaderData.contested ? (
        <p role="status" className="mt-3 text-sm text-foreground">
          {t("auth:reset.contested")}
        </p>
      ) : null}
      <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(form)}>
        <input type="hidden" name={fields.token.name} value={loaderData.token} />
        <PasswordField
          meta={fields.password}
          label={t("auth:fields.newPassword")}
          autoComplete="new-password"
        />
        <PasswordField
          meta={fields.confirm}
          label={t("auth:fields.repeatNewPassword")}
          autoComplete="new-password"
        />
        {/* The token is no field anyone can fix: a bad one is said about the link. */}
        <FormError message={fields.token.errors ? t("auth:linkNotValid") : null} />
        <FormErrors form={form} />
        <Button pending={pending}>{t("auth:reset.submit")}</Button>
      </Form>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "resetPassword");
