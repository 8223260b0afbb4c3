import { Form } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { useIsPending } from "../forms/use-is-pending";
import { ConfirmDialog } from "../ui/alert-dialog";
import { Button } from "../ui/button";
import type { RowSelection } from "../ui/table";
import { nameList } from "./name-list";
import { useSubmissionDone } from "./use-submission-done";

const FORM_ID = "bulk-users";

/**
 * "Disable selected" and "Delete selected", each behind a confirmation naming how many and who;
 * deleting asks for the count to be typed. Once either has run the selection is cleared, so no
 * armed "Delete selected" is left over rows that changed.
 */
export function BulkActions({
  selection,
  rows,
  may,
}: {
  selection: RowSelection;
  rows: { id: string; name: string }[];
  may: { update: boolean; delete: boolean };
}) {
  const { t, i18n } = useTranslation();
  const chosen = rows.filter((r) => selection.isSelected(r.id));
  const n = chosen.length;
  const who = nameList(
    chosen.map((r) => r.name),
    { language: i18n.language, others: (count) => t("users:bulk.others", { count }) },
  );
  const users = t("users:count", { count: n });
  const disabling = useIsPending({ intent: "bulk-disable" });
  const deleting = useIsPending({ intent: "bulk-delete" });
  useSubmissionDone("bulk-disable", selection.clear);
  useSubmissionDone("bulk-delete", selection.clear);
  return (
    <Form method="post" id={FORM_ID} className="flex flex-wrap items-center gap-2">
      {selection.selected.map((id) => (
        <input key={id} type="hidden" name="ids" value={id} />
      ))}
      <span className="text-sm text-muted-foreground" aria-live="polite">
        {t("users:bulk.selected", { count: n })}
      </span>
      {may.update ? (
        <ConfirmDialog
          trigger={
            <Button type="button" variant="secondary" disabled={!n} pending={disabling}>
              {t("users:bulk.disableSelected")}
            </Button>
          }
          title={t("users:bulk.disableTitle", { users })}
          description={t("users:bulk.disableDescription", { who })}
          actionLabel={t("users:bulk.disableAction", { users })}
          cancelLabel={t("users:cancel")}
          formId={FORM_ID}
          value="bulk-disable"
        />
      ) : null}
      {may.delete ? (
        <ConfirmDialog
          trigger={
            <Button type="button" variant="destructive" disabled={!n} pending={deleting}>
              {t("users:bulk.deleteSelected")}
            </Button>
          }
          title={t("users:bulk.deleteTitle", { users })}
          description={t("users:bulk.deleteDescription", { who })}
          actionLabel={t("users:bulk.deleteAction", { users })}
          confirmText={t("users:bulk.deleteConfirm", { users })}
          confirmLabel={t("users:typeToConfirm")}
          cancelLabel={t("users:cancel")}
          formId={FORM_ID}
          value="bulk-delete"
        />
      ) : null}
    </Form>
  );
}
