import { Form, Link, redirect } from "react-router";
import { twoFactorCodeSchema } from "../auth/two-factor-schemas";
import { completeSecondStep, pendingSignIn } from "../auth/two-factor-sign-in.server";
import { AuthFrame } from "../components/auth/auth-card";
import { FormErrors, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { linkVariants } from "../components/ui/link";
import { readForm } from "../http/read-form.server";
import { passRetryAfter, refusal, tooManyRequestsForm } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { say, sayIssue } from "../i18n/message";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/login.two-factor";

// Sign-in's second step (app/auth/two-factor-sign-in.server.ts): only reachable with the pending
// state the password step set; a right code (or an unused recovery code) starts the session.

const EXPIRED = "/login?twoFactor=expired";

export async function loader({ request }: Route.LoaderArgs) {
  if (!(await pendingSignIn(request))) throw redirect(EXPIRED);
  return null;
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const form = await readForm(args.request);
  const parsed = twoFactorCodeSchema.safeParse({ code: form.get("code") });
  if (!(await pendingSignIn(args.request))) throw redirect(EXPIRED);
  const t = getT(args.context);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refusal(400, "invalid_request", {
      formError: issue ? sayIssue(t, issue) : say(t, "twoFactor.enterCode"),
    });
  }
  const outcome = await completeSecondStep(args, parsed.data.code);
  if (outcome.ok) throw outcome.response;
  if (outcome.status === "expired") throw redirect(EXPIRED);
  if (outcome.status === "rate_limited") return tooManyRequestsForm(outcome.retryAfter, {}, t);
  return refusal(400, "invalid_request", { formError: say(t, outcome.message) });
}

export default function TwoFactorStep({ actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: twoFactorCodeSchema });
  const pending = useIsPending();
  return (
    <AuthFrame>
      <h1 className="text-xl font-semibold">{t("auth:twoFactor.title")}</h1>
      <p className="mt-2 text-sm text-muted-foreground">{t("auth:twoFactor.intro")}</p>
      <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(form)}>
        <TextField
          meta={fields.code}
          label={t("auth:fields.code")}
          autoComplete="one-time-code"
          autoFocus
          spellCheck={false}
        />
        {actionData?.formError ? (
          <p role="alert" className="text-sm text-destructive">
            {actionData.formError}
          </p>
        ) : (
          <FormErrors form={form} />
        )}
        <Button pending={pending}>{t("auth:twoFactor.submit")}</Button>
      </Form>
      <p className="mt-4 text-sm">
        <Link to="/login" className={linkVariants()}>
          {t("auth:twoFactor.startAgain")}
        </Link>
      </p>
    </AuthFrame>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "twoFactor");
