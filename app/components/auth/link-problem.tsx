import { Trans } from "react-i18next";
import { Form, Link } from "react-router";
import { emailOnlySchema } from "../../auth/account-schemas";
import { useTranslation } from "../../i18n/use-translation";
import { TextField } from "../forms/fields";
import { getFormProps, useAppForm } from "../forms/use-app-form";
import { useIsPending } from "../forms/use-is-pending";
import { Button } from "../ui/button";
import { linkVariants } from "../ui/link";
import { AuthCard } from "./auth-card";

export type LinkProblemReason = "invalid" | "used" | "expired" | "taken";

/** The 400 page of a verify / reset / invite link that cannot be used, with the way to a new one. */
export function LinkProblem({
  reason,
  kind,
}: {
  reason: LinkProblemReason;
  kind: "verify" | "reset" | "invite";
}) {
  const { t } = useTranslation();
  const reasons: Record<LinkProblemReason, string> = {
    invalid: t("auth:linkProblem.invalid"),
    used: t("auth:linkProblem.used"),
    expired: t("auth:linkProblem.expired"),
    taken: t("auth:linkProblem.taken"),
  };
  return (
    <AuthCard title={t("auth:linkProblem.title")}>
      <p role="alert" className="mt-3 text-sm text-foreground">
        {reasons[reason]}
      </p>
      {kind === "verify" ? (
        <NewVerificationLink />
      ) : kind === "reset" ? (
        <p className="mt-4 text-sm">
          <Link to="/forgot-password" className={linkVariants()}>
            {t("auth:linkProblem.newResetLink")}
          </Link>
        </p>
      ) : (
        <p className="mt-4 text-sm">
          <Trans
            i18nKey="auth:linkProblem.invite"
            components={{ signIn: <Link to="/login" className={linkVariants()} /> }}
          />
        </p>
      )}
    </AuthCard>
  );
}

const RESEND = "/resend-verification";

function NewVerificationLink() {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: emailOnlySchema, action: RESEND });
  const pending = useIsPending({ formAction: RESEND });
  return (
    <Form method="post" action={RESEND} className="mt-4 flex flex-col gap-3" {...getFormProps(form)}>
      <p className="text-sm">{t("auth:linkProblem.newVerification")}</p>
      <TextField meta={fields.email} label={t("auth:fields.email")} type="email" autoComplete="email" />
      <Button pending={pending}>{t("auth:linkProblem.sendNewLink")}</Button>
      <Link to="/login" className={`text-sm ${linkVariants()}`}>
        {t("auth:backToSignIn")}
      </Link>
    </Form>
  );
}
