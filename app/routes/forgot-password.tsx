import { Form, Link, redirect, useNavigation } from "react-router";
import { emailOnlySchema } from "../auth/account-schemas";
import { startPasswordReset } from "../auth/password-reset.server";
import { limitPublicForm } from "../auth/public-form-limit.server";
import { checkInboxUrl } from "../auth/public-mail.server";
import { AuthCard, AuthLinks, linkClass } from "../components/auth/auth-card";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { invalid, parseWith } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { passRetryAfter } from "../http/responses";
import type { Route } from "./+types/forgot-password";

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const limited = await limitPublicForm(args, "forgot-password");
  if (limited) return limited;
  const parsed = parseWith(emailOnlySchema, Object.fromEntries(await readForm(args.request)));
  if (!parsed.ok) return invalid(parsed.errors);
  const deliveryId = await startPasswordReset(args, parsed.value.email);
  // Same answer whether or not the account exists; the mail leaves after it.
  throw redirect(checkInboxUrl("reset", deliveryId));
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  return (
    <AuthCard title="Forgot your password?">
      <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
        Enter the email address of your account and we will send you a link to choose a new password.
      </p>
      <Form method="post" className="mt-4 flex flex-col gap-4" noValidate>
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={actionData?.errors?.email}
        />
        <FormError message={actionData?.formError} />
        <Button pending={navigation.formAction === "/forgot-password"}>Send reset link</Button>
      </Form>
      <AuthLinks>
        <Link to="/login" className={linkClass}>
          Back to sign in
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Forgot your password?");
