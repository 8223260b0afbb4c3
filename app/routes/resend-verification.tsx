import { Form, Link, redirect, useNavigation, useSearchParams } from "react-router";
import { emailOnlySchema } from "../auth/account-schemas";
import { limitPublicForm } from "../auth/public-form-limit.server";
import { checkInboxUrl } from "../auth/public-mail.server";
import { startVerificationResend } from "../auth/registration.server";
import { AuthCard, AuthLinks, linkClass } from "../components/auth/auth-card";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { invalid, parseWith } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { passRetryAfter } from "../http/responses";
import type { Route } from "./+types/resend-verification";

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const limited = await limitPublicForm(args, "resend-verification");
  if (limited) return limited;
  const parsed = parseWith(emailOnlySchema, Object.fromEntries(await readForm(args.request)));
  if (!parsed.ok) return invalid(parsed.errors);
  const deliveryId = await startVerificationResend(args, parsed.value.email);
  // Same answer for unknown, verified and unverified addresses; the mail leaves after it.
  throw redirect(checkInboxUrl("resend", deliveryId));
}

export default function ResendVerification({ actionData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const navigation = useNavigation();
  return (
    <AuthCard title="Send a new verification link">
      <Form method="post" className="mt-4 flex flex-col gap-4" noValidate>
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={params.get("email") ?? ""}
          error={actionData?.errors?.email}
        />
        <FormError message={actionData?.formError} />
        <Button pending={navigation.formAction === "/resend-verification"}>Send the link</Button>
      </Form>
      <AuthLinks>
        <Link to="/login" className={linkClass}>
          Back to sign in
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Send a new verification link");
