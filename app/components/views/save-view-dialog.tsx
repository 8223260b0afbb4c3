import { useFetcher, useLocation, useNavigate } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useTranslation } from "../../i18n/use-translation";
import { createViewSchema, type ViewList } from "../../views/view-schemas";
import { FormErrors, SelectField, TextField } from "../forms/fields";
import { getFormProps, useAppForm } from "../forms/use-app-form";
import { showToast } from "../toaster";
import { Button } from "../ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "../ui/dialog";
import { type Role, useAnswered, VIEWS_API, type ViewsAnswer } from "./views-answer";

// "Save view…": the list's address query under a name, shared with a role when the person may.

export function SaveViewDialog({
  open,
  onOpenChange,
  list,
  roles,
  onClosed,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  list: ViewList;
  roles: Role[];
  /** Saved or not, the news is in the toast; focus goes back to the views menu. */
  onClosed: (event: Event) => void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={t("views:saveTitle")}
        description={t("views:saveDescription")}
        onCloseAutoFocus={onClosed}
      >
        {open ? <SaveViewForm list={list} roles={roles} onSaved={() => onOpenChange(false)} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function SaveViewForm({ list, roles, onSaved }: { list: ViewList; roles: Role[]; onSaved: () => void }) {
  const { t } = useTranslation();
  const { search } = useLocation();
  const navigate = useNavigate();
  const fetcher = useFetcher<ViewsAnswer>();
  const [form, fields] = useAppForm({
    schema: createViewSchema,
    id: "save-view-form",
    intent: "view-create",
    action: VIEWS_API,
    lastResult: fetcher.data ?? null,
  });
  useAnswered(fetcher, (answer) => {
    if (!answer.view) return;
    showToast({ kind: "success", message: t("views:saved", { name: answer.view.name }) });
    onSaved();
    navigate(answer.view.url, { replace: true, preventScrollReset: true });
  });
  return (
    <fetcher.Form method="post" action={VIEWS_API} className="flex flex-col gap-4" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="view-create" />
      <input type="hidden" name="list" value={list} />
      <input type="hidden" name="query" value={search} />
      <TextField meta={fields.name} label={t("views:name")} autoComplete="off" />
      {roles.length ? (
        <SelectField
          meta={fields.sharedRoleId}
          label={t("views:shareWith")}
          description={t("views:shareHint")}
        >
          <option value="">{t("views:onlyMe")}</option>
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {roleLabel(t, r)}
            </option>
          ))}
        </SelectField>
      ) : null}
      <FormErrors form={form} />
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="secondary">
            {t("views:cancel")}
          </Button>
        </DialogClose>
        <Button pending={fetcher.state !== "idle"}>{t("views:saveButton")}</Button>
      </DialogFooter>
    </fetcher.Form>
  );
}
