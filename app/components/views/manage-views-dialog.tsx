import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useTranslation } from "../../i18n/use-translation";
import { renameViewSchema, type SavedViewItem } from "../../views/view-schemas";
import { FormErrors, TextField } from "../forms/fields";
import { getFormProps, useAppForm } from "../forms/use-app-form";
import { showToast } from "../toaster";
import { Button } from "../ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "../ui/dialog";
import { useAnswered, VIEWS_API, type ViewsAnswer } from "./views-answer";

// "Manage views…": rename or delete the views the person may change.

export function ManageViewsDialog({
  open,
  onOpenChange,
  views,
  onClosed,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  views: SavedViewItem[];
  onClosed: (event: Event) => void;
}) {
  const { t } = useTranslation();
  // The fetchers live here, not in the rows: a row goes away (deleted) or is remounted (renamed) as
  // the page's data comes back, possibly in the same render as the answer.
  const rename = useFetcher<ViewsAnswer>();
  const remove = useFetcher<ViewsAnswer>();
  const [renaming, setRenaming] = useState<string | null>(null);
  // The row being renamed: remounted with its new name, it takes focus back.
  const focusAfterRename = useRef<string | null>(null);
  const footer = useRef<HTMLDivElement>(null);
  useAnswered(rename, (answer) =>
    showToast({ kind: "success", message: t("views:renamed", { name: answer.name }) }),
  );
  useAnswered(remove, (answer) => {
    // The deleted row's buttons go away: focus waits on Close.
    footer.current?.querySelector("button")?.focus();
    showToast({ kind: "success", message: t("views:deleted", { name: answer.name }) });
  });
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={t("views:manageTitle")}
        description={t("views:manageDescription")}
        onCloseAutoFocus={onClosed}
      >
        {views.length === 0 ? (
          <p className="text-sm text-muted-foreground">{t("views:manageNone")}</p>
        ) : (
          <ul className="flex flex-col gap-4">
            {views.map((view) => (
              // Keyed by the name too: a renamed row starts afresh with the new name as its value.
              <li key={`${view.id}:${view.name}`}>
                <ManageViewRow
                  view={view}
                  rename={rename}
                  remove={remove}
                  answer={renaming === view.id ? (rename.data ?? null) : null}
                  onRename={() => {
                    setRenaming(view.id);
                    focusAfterRename.current = view.id;
                  }}
                  focusAfterRename={focusAfterRename}
                />
              </li>
            ))}
          </ul>
        )}
        <div ref={footer}>
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="secondary">
                {t("ui:close")}
              </Button>
            </DialogClose>
          </DialogFooter>
        </div>
      </DialogContent>
    </Dialog>
  );
}

type ViewFetcher = ReturnType<typeof useFetcher<ViewsAnswer>>;

function ManageViewRow({
  view,
  rename,
  remove,
  answer,
  onRename,
  focusAfterRename,
}: {
  view: SavedViewItem;
  rename: ViewFetcher;
  remove: ViewFetcher;
  /** The rename answer when it is this row's. */
  answer: ViewsAnswer | null;
  onRename: () => void;
  focusAfterRename: React.RefObject<string | null>;
}) {
  const { t } = useTranslation();
  const row = useRef<HTMLDivElement>(null);
  const [form, fields] = useAppForm({
    schema: renameViewSchema,
    id: `rename-view-${view.id}`,
    intent: "view-rename",
    action: VIEWS_API,
    lastResult: answer,
    defaultValue: { id: view.id, name: view.name },
  });
  // Mounted again under its new name after a rename: focus returns to the name.
  useEffect(() => {
    if (focusAfterRename.current !== view.id) return;
    focusAfterRename.current = null;
    row.current?.querySelector<HTMLInputElement>('input[name="name"]')?.focus();
  }, [focusAfterRename, view.id]);
  const deleting = remove.state !== "idle" && remove.formData?.get("id") === view.id;
  const renamingThis = rename.state !== "idle" && rename.formData?.get("id") === view.id;
  return (
    <div ref={row} className="flex flex-wrap items-end gap-2">
      <rename.Form
        method="post"
        action={VIEWS_API}
        className="flex flex-1 flex-wrap items-end gap-2"
        {...getFormProps(form)}
        onSubmit={(event) => {
          // Conform's check first: it prevents the submit when the name is refused in the browser.
          getFormProps(form).onSubmit(event);
          if (!event.defaultPrevented) onRename();
        }}
      >
        <input type="hidden" name="intent" value="view-rename" />
        <input type="hidden" name="id" value={view.id} />
        <TextField
          meta={fields.name}
          label={t("views:nameOf", { name: view.name })}
          autoComplete="off"
          className="min-w-48 flex-1"
        />
        <Button
          variant="secondary"
          pending={renamingThis}
          aria-label={t("views:renameLabel", { name: view.name })}
        >
          {t("views:rename")}
        </Button>
      </rename.Form>
      <remove.Form method="post" action={VIEWS_API}>
        <input type="hidden" name="intent" value="view-delete" />
        <input type="hidden" name="id" value={view.id} />
        <Button
          variant="destructive"
          pending={deleting}
          aria-label={t("views:deleteLabel", { name: view.name })}
        >
          {t("views:delete")}
        </Button>
      </remove.Form>
      {view.sharedWith ? (
        <p className="w-full text-xs text-muted-foreground">
          {t("views:sharedWith", { role: roleLabel(t, view.sharedWith) })}
        </p>
      ) : null}
      <FormErrors form={form} />
    </div>
  );
}
