import { data, Form, redirect, useNavigation } from "react-router";
import { acceptInviteSchema } from "../auth/account-schemas";
import { acceptInvitation, describeInvitation } from "../auth/invitations.server";
import { startSession } from "../auth/session.server";
import { AuthCard } from "../components/auth/auth-card";
import { LinkProblem } from "../components/auth/link-problem";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { invalid, parseWith } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { toastCookie } from "../http/toast.server";
import type { Route } from "./+types/accept-invite";

export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const invitation = await describeInvitation(token);
  if (!invitation.ok)
    return data({ ok: false as const, reason: invitation.reason, token: "", email: "" }, { status: 400 });
  return { ok: true as const, reason: null, token, email: invitation.email };
}

export async function action(args: Route.ActionArgs) {
  const parsed = parseWith(acceptInviteSchema, Object.fromEntries(await readForm(args.request)));
  if (!parsed.ok) return invalid(parsed.errors);
  const outcome = await acceptInvitation(args, parsed.value.token, parsed.value);
  if (!outcome.ok)
    return data({ ok: false as const, reason: outcome.reason, errors: {}, formError: null }, { status: 400 });
  const headers = new Headers();
  for (const cookie of await startSession(outcome.userId, args)) headers.append("Set-Cookie", cookie);
  headers.append(
    "Set-Cookie",
    await toastCookie({ kind: "success", message: "Welcome! Your account is ready." }),
  );
  throw redirect("/dashboard", { headers });
}

export default function AcceptInvite({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const reason = loaderData.ok
    ? actionData && "reason" in actionData
      ? actionData.reason
      : null
    : loaderData.reason;
  if (reason) return <LinkProblem reason={reason} kind="invite" />;
  const errors = (actionData?.errors ?? {}) as Record<string, string | undefined>;
  return (
    <AuthCard title="Accept your invitation">
      <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
        You are joining as <strong>{loaderData.email}</strong>. Choose your name and a password.
      </p>
      <Form method="post" className="mt-4 flex flex-col gap-4" noValidate>
        <input type="hidden" name="token" value={loaderData.token} />
        <Field label="Name" name="name" autoComplete="name" required error={errors.name} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          error={errors.password}
        />
        <Field
          label="Repeat the password"
          name="confirm"
          type="password"
          autoComplete="new-password"
          required
          error={errors.confirm}
        />
        <FormError message={errors.token ? "This link is not valid." : actionData?.formError} />
        <Button pending={navigation.state === "submitting"}>Create my account</Button>
      </Form>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Accept your invitation");
