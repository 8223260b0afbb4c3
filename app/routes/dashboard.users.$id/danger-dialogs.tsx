import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { useTranslation } from "../../i18n/use-translation";

export type Danger = "disable" | "reset-two-factor" | "delete";

/**
 * The acts that hurt, each behind one confirmation, opened from the danger zone or from the header's
 * actions menu alike: the same words and the same form wherever it was asked for.
 */
export function DangerDialogs({
  open,
  onClose,
  returnFocusTo,
  formId,
  user,
  signedOut,
}: {
  open: Danger | null;
  onClose: () => void;
  returnFocusTo: React.RefObject<HTMLElement | null>;
  formId: string;
  user: { name: string; email: string };
  /** What disabling does to their sessions, in words. */
  signedOut: string;
}) {
  const { t } = useTranslation();
  const shared = (danger: Danger) => ({
    open: open === danger,
    onOpenChange: (next: boolean) => {
      if (!next) onClose();
    },
    returnFocusTo,
    formId,
    value: danger,
    cancelLabel: t("users:cancel"),
  });
  return (
    <>
      <ConfirmDialog
        {...shared("disable")}
        title={t("users:page.disableTitle", { name: user.name })}
        description={signedOut}
        actionLabel={t("users:page.disable")}
      />
      <ConfirmDialog
        {...shared("reset-two-factor")}
        title={t("users:page.resetTwoFactorTitle", { name: user.name })}
        description={t("users:page.resetTwoFactorDescription", { name: user.name })}
        actionLabel={t("users:page.resetTwoFactorAction")}
      />
      <ConfirmDialog
        {...shared("delete")}
        title={t("users:page.deleteTitle", { name: user.name })}
        description={t("users:page.deleteDescription", { name: user.name })}
        actionLabel={t("users:page.deleteAction")}
        confirmLabel={t("users:page.deleteConfirm")}
        confirmText={user.email}
      />
    </>
  );
}
