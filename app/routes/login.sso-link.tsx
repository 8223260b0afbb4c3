import { Form, Link, redirect } from "react-router";
import { pendingLinkView, proveAndLink } from "../auth/sso-link.server";
import { linkCodeSchema, linkPasswordSchema, parseLinkProof } from "../auth/sso-link-schemas";
import { AuthFrame } from "../components/auth/auth-card";
import { FormErrors, PasswordField, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { linkVariants } from "../components/ui/link";
import { readForm } from "../http/read-form.server";
import { passRetryAfter, refusal, tooManyRequestsForm } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { say } from "../i18n/message";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/login.sso-link";

// A single sign-on identity waits here for the account holder's proof before it is linked to a
// protected account (app/auth/sso-link.server.ts): only reachable with the pending state the
// callback set in this browser; the account's password or a two-factor code links it, once.

const EXPIRED = "/login?sso=expired";

export async function loader({ request }: Route.LoaderArgs) {
  const view = await pendingLinkView(request);
  if (!view) throw redirect(EXPIRED);
  return view;
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const form = await readForm(args.request);
  const t = getT(args.context);
  const parsed = parseLinkProof(Object.fromEntries(form), t);
  if (!parsed.ok)
    return refusal(400, "invalid_request", { intent: parsed.intent, formError: parsed.formError });
  const { intent, proof } = parsed;
  const outcome = await proveAndLink(args, proof);
  if (outcome.ok) throw outcome.response;
  if (outcome.status === "expired") throw redirect(EXPIRED);
  if (outcome.status === "conflict") throw redirect("/login?sso=conflict");
  if (outcome.status === "rate_limited") return tooManyRequestsForm(outcome.retryAfter, { intent }, t);
  return refusal(400, "invalid_request", { intent, formError: say(t, outcome.message) });
}

export default function ConfirmSingleSignOnLink({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [passwordForm, passwordFields] = useAppForm({ schema: linkPasswordSchema, intent: "password" });
  const [codeForm, codeFields] = useAppForm({ schema: linkCodeSchema, intent: "code" });
  const pending = useIsPending();
  const error = (intent: string) =>
    actionData && "formError" in actionData && actionData.intent === intent && actionData.formError ? (
      <p role="alert" className="text-sm text-destructive">
        {String(actionData.formError)}
      </p>
    ) : null;
  const names = { provider: loaderData.provider, email: loaderData.email };
  return (
    <AuthFrame>
      <h1 className="text-xl font-semibold">{t("auth:ssoLink.title")}</h1>
      <p className="mt-2 text-sm text-muted-foreground">{t("auth:ssoLink.intro", names)}</p>
      <p className="mt-2 text-sm text-muted-foreground">{t("auth:ssoLink.once", names)}</p>
      {loaderData.canUsePassword ? (
        <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(passwordForm)}>
          <input type="hidden" name="intent" value="password" />
          <PasswordField
            meta={passwordFields.password}
            label={t("auth:fields.password")}
            autoComplete="current-password"
            autoFocus
          />
          {error("password") ?? <FormErrors form={passwordForm} />}
          <Button pending={pending}>{t("auth:ssoLink.withPassword")}</Button>
        </Form>
      ) : null}
      {loaderData.canUseCode ? (
        <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(codeForm)}>
          <input type="hidden" name="intent" value="code" />
          <TextField
            meta={codeFields.code}
            label={t("auth:fields.code")}
            autoComplete="one-time-code"
            autoFocus={!loaderData.canUsePassword}
            spellCheck={false}
          />
          {error("code") ?? <FormErrors form={codeForm} />}
          <Button variant={loaderData.canUsePassword ? "secondary" : undefined} pending={pending}>
            {t("auth:ssoLink.withCode")}
          </Button>
        </Form>
      ) : null}
      {!loaderData.canUsePassword && !loaderData.canUseCode ? (
        <p role="alert" className="mt-4 text-sm text-destructive">
          {t("auth:ssoLink.noProof", names)}
        </p>
      ) : null}
      <p className="mt-4 text-sm">
        <Link to="/login" className={linkVariants()}>
          {t("auth:ssoLink.cancel")}
        </Link>
      </p>
    </AuthFrame>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "ssoLink");
