import { useEffect, useId, useState } from "react";
import { useTranslation } from "../i18n/use-translation";
import { Button } from "./ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "./ui/dialog";
import { Input, labelClass } from "./ui/field";

/**
 * A secret the server shows only in this answer (an API token, a webhook's signing secret, a
 * directory's SCIM token), one way for all: a dialog with the value, Copy, and "I have saved it".
 * A click outside does not close it, so the secret is not lost by a stray click.
 */
export function SecretReveal({
  secret,
  title,
  note,
  testId,
}: {
  secret: string | undefined;
  title: string;
  note: string;
  testId: string;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [copied, setCopied] = useState<boolean | null>(null);
  useEffect(() => {
    if (!secret) return;
    setOpen(true);
    setCopied(null);
  }, [secret]);
  if (!secret) return null;
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogContent title={title} description={note} onInteractOutside={(e) => e.preventDefault()}>
        <label htmlFor={id} className={labelClass}>
          {t("ui:secret.label")}
        </label>
        <div className="mt-1 flex flex-wrap gap-2">
          <Input
            id={id}
            readOnly
            value={secret}
            data-testid={testId}
            onFocus={(e) => e.currentTarget.select()}
            className="mt-0 w-auto min-w-0 flex-1 font-mono"
          />
          <Button
            type="button"
            variant="secondary"
            onClick={() =>
              navigator.clipboard?.writeText(secret).then(
                () => setCopied(true),
                () => setCopied(false),
              ) ?? setCopied(false)
            }
          >
            {t("ui:secret.copy")}
          </Button>
        </div>
        <p role="status" className="mt-1 min-h-5 text-sm">
          {copied === null ? "" : copied ? t("ui:secret.copied") : t("ui:secret.copyByHand")}
        </p>
        <DialogFooter>
          <DialogClose asChild>
            <Button type="button">{t("ui:secret.saved")}</Button>
          </DialogClose>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
