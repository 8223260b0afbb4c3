import { Form, Link } from "react-router";
import { emailOnlySchema } from "../../auth/account-schemas";
import { TextField } from "../forms/fields";
import { getFormProps, useAppForm } from "../forms/use-app-form";
import { useIsPending } from "../forms/use-is-pending";
import { Button } from "../ui/button";
import { AuthCard, linkClass } from "./auth-card";

export type LinkProblemReason = "invalid" | "used" | "expired" | "taken";

const REASONS: Record<LinkProblemReason, string> = {
  invalid: "This link is not valid. It may have been copied incompletely.",
  used: "This link has already been used. Each link works only once.",
  expired: "This link has expired.",
  taken: "The email address in this link now belongs to another account.",
};

/** The 400 page of a verify / reset / invite link that cannot be used, with the way to a new one. */
export function LinkProblem({
  reason,
  kind,
}: {
  reason: LinkProblemReason;
  kind: "verify" | "reset" | "invite";
}) {
  return (
    <AuthCard title="This link cannot be used">
      <p role="alert" className="mt-3 text-sm text-slate-800 dark:text-slate-200">
        {REASONS[reason]}
      </p>
      {kind === "verify" ? (
        <NewVerificationLink />
      ) : kind === "reset" ? (
        <p className="mt-4 text-sm">
          <Link to="/forgot-password" className={linkClass}>
            Request a new password reset link
          </Link>
        </p>
      ) : (
        <p className="mt-4 text-sm">
          Ask the person who invited you to send a new invitation, or{" "}
          <Link to="/login" className={linkClass}>
            sign in
          </Link>{" "}
          if you already have an account.
        </p>
      )}
    </AuthCard>
  );
}

const RESEND = "/resend-verification";

function NewVerificationLink() {
  const [form, fields] = useAppForm({ schema: emailOnlySchema, action: RESEND });
  const pending = useIsPending({ formAction: RESEND });
  return (
    <Form method="post" action={RESEND} className="mt-4 flex flex-col gap-3" {...getFormProps(form)}>
      <p className="text-sm">Enter your email address and we will send you a new verification link.</p>
      <TextField meta={fields.email} label="Email" type="email" autoComplete="email" />
      <Button pending={pending}>Send a new link</Button>
      <Link to="/login" className={`text-sm ${linkClass}`}>
        Back to sign in
      </Link>
    </Form>
  );
}
