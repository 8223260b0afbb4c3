import { Form } from "react-router";
import { useFormat } from "../../components/format";
import { Button } from "../../components/ui/button";
import { EmptyState, FormError } from "../../components/ui/card";
import { PendingInvitationStatus } from "../../components/users/invite-link";
import { useTranslation } from "../../i18n/use-translation";
import type { loader } from "./route";

type Invitation = Awaited<ReturnType<typeof loader>>["invitations"][number];

/** The Invitations tab: each pending invitation with Resend, Cancel and, where its email did not go out, its link. */
export function InvitationsPanel({
  invitations,
  error,
}: {
  invitations: Invitation[];
  error: string | null;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  if (invitations.length === 0) return <EmptyState>{t("users:invitations.none")}</EmptyState>;
  return (
    <div className="flex flex-col gap-3">
      {error ? <FormError message={error} /> : null}
      <ul className="flex flex-col gap-2 text-sm" data-testid="pending-invitations">
        {invitations.map((inv) => (
          <li key={inv.id} className="flex flex-wrap items-center justify-between gap-2">
            <span className="break-all">
              {t("users:invitations.item", {
                email: inv.email,
                roles: inv.roles.join(", ") || t("users:invitations.noRoles"),
                expires: formatDateTime(inv.expiresAt),
              })}
            </span>
            <Form method="post" className="flex gap-2">
              <input type="hidden" name="invitationId" value={inv.id} />
              <Button
                variant="secondary"
                name="intent"
                value="resend-invite"
                className="px-2 py-1 text-xs"
                aria-label={t("users:invitations.resendLabel", { email: inv.email })}
              >
                {t("users:invitations.resend")}
              </Button>
              <Button
                variant="secondary"
                name="intent"
                value="cancel-invite"
                className="px-2 py-1 text-xs"
                aria-label={t("users:invitations.cancelLabel", { email: inv.email })}
              >
                {t("users:invitations.cancel")}
              </Button>
            </Form>
            <PendingInvitationStatus invitation={inv} />
          </li>
        ))}
      </ul>
    </div>
  );
}
