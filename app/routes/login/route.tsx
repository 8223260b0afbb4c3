import { Form, Link, redirect, useSearchParams } from "react-router";
import { loginSchema } from "../../auth/account-schemas";
import { attemptLogin } from "../../auth/login.server";
import { passkeyAvailability } from "../../auth/passkeys.server";
import { registrationOpen } from "../../auth/registration.server";
import { getSessionUser } from "../../auth/session.server";
import { completeSignIn } from "../../auth/sign-in.server";
import { signInProviders } from "../../auth/sso-providers.server";
import { AuthFrame } from "../../components/auth/auth-card";
import { FormErrors, PasswordField, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { pageTitle } from "../../components/page-title";
import { SsoSignIn } from "../../components/sso-sign-in";
import { alertVariants } from "../../components/ui/alert";
import { Button } from "../../components/ui/button";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import { readForm } from "../../http/read-form.server";
import { passRetryAfter, refusal, safeRedirectPath, tooManyRequestsForm } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { say } from "../../i18n/message";
import { useTranslation } from "../../i18n/use-translation";
import type { Route } from "./+types/route";
import { PasskeySignIn } from "./passkey-sign-in";

export async function loader(args: Route.LoaderArgs) {
  const user = await getSessionUser(args);
  if (user) throw redirect(safeRedirectPath(new URL(args.request.url).searchParams.get("redirectTo")));
  // No passkey button nor autofill request where the browser would refuse them (an IP address).
  return {
    sso: await signInProviders(),
    passkeys: passkeyAvailability(args.request).available,
    // No way to a form that would refuse (Settings → System, public registration).
    registration: await registrationOpen(),
  };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const form = await readForm(args.request.clone());
  const email = String(form.get("email") ?? "");
  const outcome = await attemptLogin(args, email);
  if (!outcome.ok && outcome.status === "rate_limited")
    return tooManyRequestsForm(outcome.retryAfter, { email, unverified: false }, getT(args.context));
  if (!outcome.ok) {
    const unverified = outcome.reason === "unverified";
    const formError = say(getT(args.context), outcome.message);
    return refusal(outcome.status, "invalid_request", { formError, email, unverified });
  }
  throw await completeSignIn(args, outcome.user.id, {
    method: "password",
    factors: 1,
    redirectTo: form.get("redirectTo"),
  });
}

// The server keeps its one answer for any bad pair (attemptLogin, audited and rate limited); the
// schema only spares a round trip for an empty field or something that is not an address.
export default function Login({ actionData, loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [form, fields] = useAppForm({ schema: loginSchema, defaultValue: { email: actionData?.email } });
  const pending = useIsPending();
  const resending = useIsPending({ formAction: "/resend-verification" });
  return (
    <AuthFrame>
      <h1 className="text-xl font-semibold">{t("auth:login.title")}</h1>
      {params.get("verified") === "1" ? (
        <p role="status" className={cn(alertVariants({ variant: "success" }), "mt-3")}>
          {t("auth:login.verified")}
        </p>
      ) : null}
      {params.get("twoFactor") === "expired" ? (
        <p role="status" className={cn(alertVariants({ variant: "warning" }), "mt-3")}>
          {t("auth:login.twoFactorExpired")}
        </p>
      ) : null}
      <SsoSignIn
        providers={loaderData.sso}
        refusal={params.get("sso")}
        redirectTo={params.get("redirectTo")}
      />
      <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(form)}>
        <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? "/dashboard"} />
        {/* "webauthn" last: the browser may offer passkeys in this field's autofill (conditional UI). */}
        <TextField
          meta={fields.email}
          label={t("auth:fields.email")}
          type="email"
          autoComplete={loaderData.passkeys ? "username webauthn" : "username"}
        />
        <PasswordField
          meta={fields.password}
          label={t("auth:fields.password")}
          autoComplete="current-password"
        />
        <FormErrors form={form} />
        <Button pending={pending}>{t("auth:login.submit")}</Button>
      </Form>
      {loaderData.passkeys ? <PasskeySignIn redirectTo={params.get("redirectTo") ?? "/dashboard"} /> : null}
      {actionData?.unverified ? (
        <Form method="post" action="/resend-verification" className="mt-3">
          <input type="hidden" name="email" value={actionData.email} />
          <Button variant="secondary" className="w-full" pending={resending}>
            {t("auth:login.resendVerification")}
          </Button>
        </Form>
      ) : null}
      <p className="mt-4 flex flex-wrap justify-between gap-2 text-sm">
        <Link to="/forgot-password" className={linkVariants()}>
          {t("auth:login.forgotPassword")}
        </Link>
        {loaderData.registration ? (
          <Link to="/register" className={linkVariants()}>
            {t("auth:login.register")}
          </Link>
        ) : null}
      </p>
    </AuthFrame>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "signIn");
