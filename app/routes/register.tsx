import { Form, Link, redirect } from "react-router";
import { registerSchema } from "../auth/account-schemas";
import { breachedField } from "../auth/breached-passwords.server";
import { limitPublicForm } from "../auth/public-form-limit.server";
import { checkInboxUrl } from "../auth/public-mail.server";
import { registerAccount, registrationOpen } from "../auth/registration.server";
import { registrationBinding } from "../auth/registration-binding.server";
import { getSessionUser } from "../auth/session.server";
import { AuthCard, AuthLinks } from "../components/auth/auth-card";
import { FormErrors, PasswordField, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { linkVariants } from "../components/ui/link";
import { invalidSubmission, parseSubmission } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { passRetryAfter, refusal } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { say } from "../i18n/message";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/register";

export async function loader(args: Route.LoaderArgs) {
  if (await getSessionUser(args)) throw redirect("/dashboard");
  return { open: await registrationOpen() };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  // Closed (Settings → System): refused before anything is read or counted, and nothing is written.
  if (!(await registrationOpen()))
    return refusal(403, "registration_closed", {
      ok: false as const,
      errors: {},
      formError: say(getT(args.context), "auth.registrationClosed"),
    });
  const limited = await limitPublicForm(args, "register");
  if (limited) return limited;
  const form = await readForm(args.request);
  const submission = parseSubmission(form, registerSchema, getT(args.context));
  if (submission.status !== "success") return invalidSubmission(submission);
  // Before any account is looked at, so the answer says nothing about which addresses exist.
  const breach = await breachedField(args, submission, submission.value.password);
  if (breach.refusal) return breach.refusal;
  const binding = await registrationBinding(args.request);
  const deliveryId = await registerAccount(args, { ...submission.value, binding: binding.hash });
  // The same answer whether the address was new or not; the mail leaves after it.
  throw redirect(checkInboxUrl("register", deliveryId), { headers: { "Set-Cookie": binding.setCookie } });
}

export default function Register({ loaderData, actionData }: Route.ComponentProps) {
  const closed =
    !loaderData.open || (actionData && "error" in actionData && actionData.error === "registration_closed");
  return closed ? <RegistrationClosed /> : <RegisterForm />;
}

/** Closed to the public: said plainly, with the ways in that remain. */
function RegistrationClosed() {
  const { t } = useTranslation();
  return (
    <AuthCard title={t("auth:register.closedTitle")}>
      <p className="mt-3 text-sm" data-testid="registration-closed">
        {t("auth:register.closed")}
      </p>
      <AuthLinks>
        <Link to="/login" className={linkVariants()}>
          {t("auth:register.haveAccount")}
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

function RegisterForm() {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: registerSchema });
  const pending = useIsPending();
  return (
    <AuthCard title={t("auth:register.title")}>
      <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(form)}>
        <TextField meta={fields.name} label={t("auth:fields.name")} autoComplete="name" />
        <TextField meta={fields.email} label={t("auth:fields.email")} type="email" autoComplete="email" />
        <PasswordField
          meta={fields.password}
          label={t("auth:fields.password")}
          autoComplete="new-password"
          description={t("auth:register.passwordHint", { min: fields.password.minLength })}
        />
        <FormErrors form={form} />
        <Button pending={pending}>{t("auth:register.submit")}</Button>
      </Form>
      <AuthLinks>
        <Link to="/login" className={linkVariants()}>
          {t("auth:register.haveAccount")}
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "register");
