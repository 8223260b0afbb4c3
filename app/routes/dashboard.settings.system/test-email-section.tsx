import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { emailOnlySchema } from "../../auth/account-schemas";
import { TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button, focusRing } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";

type MailAnswer = { ok: true; messageId: string; via: string } | { error: string; message?: string };

/** Calls POST /api/mail with JSON, the same endpoint scripts use. */
export function TestEmailSection({ defaultTo }: { defaultTo: string }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<MailAnswer>();
  const answer = fetcher.data;
  const pending = useIsPending({ formAction: "/api/mail" });
  // The endpoint's body is { to }; the browser checks the address with the one email rule.
  const [form, fields] = useAppForm({
    schema: emailOnlySchema,
    id: "settings-test-email",
    action: "/api/mail",
    lastResult: null,
    defaultValue: { email: defaultTo },
  });
  const formProps = getFormProps(form);
  const status = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (answer && "ok" in answer) status.current?.focus();
  }, [answer]);
  return (
    <Card title={t("settings:testEmail.title")}>
      <form
        {...formProps}
        className="flex flex-col gap-3"
        onSubmit={(event) => {
          formProps.onSubmit(event);
          if (event.defaultPrevented) return;
          event.preventDefault();
          const to = String(new FormData(event.currentTarget).get("email") ?? "");
          fetcher.submit({ to }, { method: "post", action: "/api/mail", encType: "application/json" });
        }}
      >
        <TextField
          meta={fields.email}
          label={t("settings:testEmail.recipient")}
          type="email"
          autoComplete="email"
        />
        {answer && "error" in answer ? (
          <FormError message={answer.message ?? t("settings:testEmail.failed")} />
        ) : null}
        <p ref={status} role="status" tabIndex={-1} className={`text-sm text-success ${focusRing}`}>
          {answer && "ok" in answer
            ? answer.via === "outbox"
              ? t("settings:testEmail.outbox", { id: answer.messageId })
              : t("settings:testEmail.sent", { id: answer.messageId })
            : null}
        </p>
        <div>
          <Button pending={pending} variant="secondary">
            {t("settings:testEmail.send")}
          </Button>
        </div>
      </form>
    </Card>
  );
}
