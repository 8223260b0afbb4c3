import { Form, Link, redirect, useNavigation } from "react-router";
import { registerSchema } from "../auth/account-schemas";
import { limitPublicForm } from "../auth/public-form-limit.server";
import { checkInboxUrl } from "../auth/public-mail.server";
import { registerAccount } from "../auth/registration.server";
import { registrationBinding } from "../auth/registration-binding.server";
import { getSessionUser } from "../auth/session.server";
import { AuthCard, AuthLinks, linkClass } from "../components/auth/auth-card";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { invalid, parseWith } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { passRetryAfter } from "../http/responses";
import type { Route } from "./+types/register";

export async function loader(args: Route.LoaderArgs) {
  if (await getSessionUser(args)) throw redirect("/dashboard");
  return null;
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const limited = await limitPublicForm(args, "register");
  if (limited) return limited;
  const form = await readForm(args.request);
  const parsed = parseWith(registerSchema, Object.fromEntries(form));
  if (!parsed.ok) return invalid(parsed.errors);
  const binding = await registrationBinding(args.request);
  const deliveryId = await registerAccount(args, { ...parsed.value, binding: binding.hash });
  // The same answer whether the address was new or not; the mail leaves after it.
  throw redirect(checkInboxUrl("register", deliveryId), { headers: { "Set-Cookie": binding.setCookie } });
}

export default function Register({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const pending = navigation.state !== "idle" && navigation.formAction === "/register";
  const errors = actionData?.errors ?? {};
  return (
    <AuthCard title="Create an account">
      <Form method="post" className="mt-4 flex flex-col gap-4" noValidate>
        <Field label="Name" name="name" autoComplete="name" required error={errors.name} />
        <Field label="Email" name="email" type="email" autoComplete="email" required error={errors.email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          aria-description="At least 10 characters; common passwords are refused."
          error={errors.password}
        />
        <FormError message={actionData?.formError} />
        <Button pending={pending}>Create account</Button>
      </Form>
      <AuthLinks>
        <Link to="/login" className={linkClass}>
          Already have an account? Sign in
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Create an account");
