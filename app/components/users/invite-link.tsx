import { Link2 } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { useFormat } from "../format";
import { Alert } from "../ui/alert";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { FormError } from "../ui/card";
import { Input, labelClass } from "../ui/field";

type UnsentReason = "no_provider" | "refused";

type LinkAnswer = {
  ok: boolean;
  intent?: string;
  formError?: string | null;
  email?: string;
  link?: string;
  expiresAt?: string;
};

export function PendingInvitationStatus({
  invitation,
}: {
  invitation: { id: string; email: string; unsent: UnsentReason | null; mayCopyLink: boolean };
}) {
  const { t } = useTranslation();
  if (!invitation.unsent) return null;
  return (
    <div className="flex w-full flex-col gap-1">
      <p className="flex flex-wrap items-center gap-2">
        <Badge variant="warning">{t(`users:invitations.unsent.${invitation.unsent}`)}</Badge>
        {invitation.mayCopyLink ? null : (
          <span className="text-xs text-muted-foreground">{t("users:invitations.copyNotYours")}</span>
        )}
      </p>
      {invitation.mayCopyLink ? (
        <CopyInviteLink invitationId={invitation.id} email={invitation.email} />
      ) : null}
    </div>
  );
}

/** Revealing a link writes only its audit row: the page need not load again after one. */
export function isLinkReveal(form: FormData | undefined): boolean {
  return form?.get("intent") === "invite-link";
}

/** Asked for each time, as every reveal is audited; the link lives in this component only, never in a toast, data or the address bar. */
function CopyInviteLink({ invitationId, email }: { invitationId: string; email: string }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const fetcher = useFetcher<LinkAnswer>();
  const [copy, setCopy] = useState<{ link: string; copied: boolean; expiresAt: string } | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const fieldId = useId();
  const answer = fetcher.data?.intent === "invite-link" ? fetcher.data : undefined;

  useEffect(() => {
    const link = answer?.link;
    if (!link || !answer.expiresAt) return;
    const expiresAt = answer.expiresAt;
    let live = true;
    const done = (copied: boolean) => live && setCopy({ link, copied, expiresAt });
    if (navigator.clipboard)
      navigator.clipboard.writeText(link).then(
        () => done(true),
        () => done(false),
      );
    else done(false);
    return () => {
      live = false;
    };
  }, [answer]);

  useEffect(() => {
    if (copy && !copy.copied) field.current?.select();
  }, [copy]);

  return (
    <fetcher.Form
      method="post"
      action="/dashboard/users"
      className="flex flex-col gap-2"
      onSubmit={() => setCopy(null)}
    >
      <input type="hidden" name="invitationId" value={invitationId} />
      <div>
        <Button
          variant="secondary"
          size="xs"
          name="intent"
          value="invite-link"
          pending={fetcher.state !== "idle"}
          aria-label={t("users:invitations.copyLinkLabel", { email })}
        >
          <Link2 aria-hidden className="size-3.5" />
          {t("users:invitations.copyLink")}
        </Button>
      </div>
      {answer && !answer.ok ? <FormError message={answer.formError} /> : null}
      {copy && !copy.copied ? (
        <div>
          <label htmlFor={fieldId} className={labelClass}>
            {t("users:invitations.linkField", { email })}
          </label>
          <Input
            id={fieldId}
            ref={field}
            value={copy.link}
            readOnly
            onFocus={(e) => e.currentTarget.select()}
          />
        </div>
      ) : null}
      <p role="status" className="text-xs text-muted-foreground">
        {copy
          ? t(copy.copied ? "users:invitations.copied" : "users:invitations.copyByHand", {
              email,
              expires: formatDateTime(copy.expiresAt),
            })
          : null}
      </p>
    </fetcher.Form>
  );
}

/** The invitation stands but its email did not go out: said as such, with its link to copy. */
export function UnsentInvitation({
  message,
  invitation,
}: {
  message: string;
  invitation: { id: string; email: string };
}) {
  const ref = useRef<HTMLParagraphElement>(null);
  // Keyed by the invitation: a new one mounts afresh and takes focus, so it is read out at once.
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <Alert variant="warning" framed className="mt-3 flex flex-col gap-2" data-testid="invite-unsent">
      <p ref={ref} role="status" tabIndex={-1}>
        {message}
      </p>
      <CopyInviteLink invitationId={invitation.id} email={invitation.email} />
    </Alert>
  );
}
