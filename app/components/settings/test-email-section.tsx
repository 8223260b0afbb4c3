import { useFetcher } from "react-router";
import { useIsPending } from "../forms/use-is-pending";
import { Button } from "../ui/button";
import { Card, FormError } from "../ui/card";
import { Field } from "../ui/field";

type MailAnswer = { ok: true; messageId: string; via: string } | { error: string; message?: string };

/** Calls POST /api/mail with JSON, the same endpoint scripts use. */
export function TestEmailSection({ defaultTo }: { defaultTo: string }) {
  const fetcher = useFetcher<MailAnswer>();
  const answer = fetcher.data;
  const pending = useIsPending({ formAction: "/api/mail" });
  return (
    <Card title="Send a test email">
      <form
        className="flex flex-col gap-3"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const to = String(new FormData(event.currentTarget).get("to") ?? "");
          fetcher.submit({ to }, { method: "post", action: "/api/mail", encType: "application/json" });
        }}
      >
        <Field
          label="Recipient"
          name="to"
          type="email"
          autoComplete="email"
          required
          defaultValue={defaultTo}
        />
        {answer && "error" in answer ? (
          <FormError message={answer.message ?? "The test email could not be sent."} />
        ) : null}
        <p role="status" aria-live="polite" className="text-sm text-emerald-800 dark:text-emerald-300">
          {answer && "ok" in answer
            ? answer.via === "outbox"
              ? `No mail key is set: the email went to the development outbox (${answer.messageId}).`
              : `Sent. Provider message id: ${answer.messageId}.`
            : null}
        </p>
        <div>
          <Button pending={pending} variant="secondary">
            Send test email
          </Button>
        </div>
      </form>
    </Card>
  );
}
