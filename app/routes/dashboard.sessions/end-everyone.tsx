import { useSubmit } from "react-router";
import { useIsPending } from "../../components/forms/use-is-pending";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Button } from "../../components/ui/button";
import { useTranslation } from "../../i18n/use-translation";

/** For an incident: everyone signs in again, the super admin pressing it stays. Typed to confirm. */
export function EndEveryone() {
  const { t } = useTranslation();
  const submit = useSubmit();
  const pending = useIsPending({ intent: "end-everyone" });
  return (
    <ConfirmDialog
      trigger={
        <Button type="button" variant="destructive" pending={pending}>
          {t("users:sessions.endEveryone")}
        </Button>
      }
      title={t("users:sessions.endEveryoneTitle")}
      description={t("users:sessions.endEveryoneText")}
      actionLabel={t("users:sessions.endEveryone")}
      confirmText="END"
      confirmLabel={t("users:sessions.endEveryoneConfirm")}
      onConfirm={() => submit({ intent: "end-everyone" }, { method: "post" })}
    />
  );
}
