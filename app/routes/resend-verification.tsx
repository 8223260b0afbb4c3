import { Form, Link, redirect, useSearchParams } from "react-router";
import { emailOnlySchema } from "../auth/account-schemas";
import { limitPublicForm } from "../auth/public-form-limit.server";
import { checkInboxUrl } from "../auth/public-mail.server";
import { startVerificationResend } from "../auth/registration.server";
import { AuthCard, AuthLinks } from "../components/auth/auth-card";
import { FormErrors, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { linkVariants } from "../components/ui/link";
import { invalidSubmission, parseSubmission } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { passRetryAfter } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/resend-verification";

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const limited = await limitPublicForm(args, "resend-verification");
  if (limited) return limited;
  const submission = parseSubmission(await readForm(args.request), emailOnlySchema, getT(args.context));
  if (submission.status !== "success") return invalidSubmission(submission);
  const deliveryId = await startVerificationResend(args, submission.value.email);
  // Same answer for unknown, verified and unverified addresses; the mail leaves after it.
  throw redirect(checkInboxUrl("resend", deliveryId));
}

export default function ResendVerification() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [form, fields] = useAppForm({
    schema: emailOnlySchema,
    defaultValue: { email: params.get("email") ?? "" },
  });
  const pending = useIsPending();
  return (
    <AuthCard title={t("auth:resend.title")}>
      <Form method="post" className="mt-4 flex flex-col gap-4" {...getFormProps(form)}>
        <TextField meta={fields.email} label={t("auth:fields.email")} type="email" autoComplete="email" />
        <FormErrors form={form} />
        <Button pending={pending}>{t("auth:resend.submit")}</Button>
      </Form>
      <AuthLinks>
        <Link to="/login" className={linkVariants()}>
          {t("auth:backToSignIn")}
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "resendVerification");
