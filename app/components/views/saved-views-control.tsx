import { Bookmark, Check, Settings2, Share2 } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFetcher, useLocation, useNavigate } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useTranslation } from "../../i18n/use-translation";
import {
  createViewSchema,
  renameViewSchema,
  type SavedViewItem,
  type ViewList,
} from "../../views/view-schemas";
import { FormErrors, SelectField, TextField } from "../forms/fields";
import { getFormProps, useAppForm } from "../forms/use-app-form";
import { focusUpdates, showToast } from "../toaster";
import { Button } from "../ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "../ui/dialog";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "../ui/dropdown-menu";

// The Views control of a list (users, audit log): open a saved view, save the list as it is
// filtered and sorted, rename or delete one's views. It posts to /api/views (app/routes/api.views.ts);
// what it lists comes from the page's loader (`viewsForList`), which also says which query the
// address shows, so the view open now is named on the trigger.

type Role = { id: string; name: string; label: string };

export type SavedViewsData = {
  list: ViewList;
  views: SavedViewItem[];
  /** The normalised query of the address the page shows; null when the list refuses it. */
  current: string | null;
  /** Roles a view may be shared with: empty unless the person may share. */
  shareRoles: Role[];
};

type Answer = { ok: boolean; intent?: string; view?: SavedViewItem; name?: string };

const API = "/api/views";

export function SavedViewsControl({ saved }: { saved: SavedViewsData }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<"save" | "manage" | null>(null);
  // The menu item that opened a dialog is gone when it closes: focus returns to the Views button.
  const trigger = useRef<HTMLButtonElement>(null);
  const backToTrigger = (event: Event) => {
    event.preventDefault();
    trigger.current?.focus();
  };
  const open =
    saved.current === null
      ? undefined
      : (saved.views.find((v) => v.mine && v.query === saved.current) ??
        saved.views.find((v) => v.query === saved.current));
  const mine = saved.views.filter((v) => v.mine);
  const shared = saved.views.filter((v) => !v.mine);
  const item = (view: SavedViewItem) => (
    <DropdownMenuItem key={view.id} onSelect={() => navigate(view.url)}>
      {view === open ? (
        <Check aria-hidden className="size-4" />
      ) : (
        <span aria-hidden className="inline-block size-4" />
      )}
      <span className="truncate">{view.name}</span>
      {view.sharedWith ? (
        <span className="ml-auto flex items-center gap-1 pl-2 text-xs text-muted-foreground">
          <Share2 aria-hidden className="size-3" />
          {t("views:sharedWith", { role: roleLabel(t, view.sharedWith) })}
        </span>
      ) : null}
      {view === open ? <span className="sr-only">{t("views:current")}</span> : null}
    </DropdownMenuItem>
  );

  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="saved-views">
      <DropdownMenu>
        <DropdownMenuTrigger ref={trigger}>
          <Button type="button" variant="secondary">
            <Bookmark aria-hidden className="size-4" />
            <span className="max-w-64 truncate">
              {open ? t("views:buttonOpen", { name: open.name }) : t("views:button")}
            </span>
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="start" className="max-w-sm">
          {saved.views.length === 0 ? (
            <DropdownMenuLabel>
              <span className="text-muted-foreground">{t("views:none")}</span>
            </DropdownMenuLabel>
          ) : null}
          {mine.length ? <DropdownMenuLabel>{t("views:mine")}</DropdownMenuLabel> : null}
          {mine.map(item)}
          {shared.length ? <DropdownMenuLabel>{t("views:shared")}</DropdownMenuLabel> : null}
          {shared.map(item)}
          <DropdownMenuSeparator />
          <DropdownMenuItem onSelect={() => setDialog("save")}>
            <Bookmark aria-hidden className="size-4" />
            {t("views:save")}
          </DropdownMenuItem>
          {saved.views.some((v) => v.manageable) ? (
            <DropdownMenuItem onSelect={() => setDialog("manage")}>
              <Settings2 aria-hidden className="size-4" />
              {t("views:manage")}
            </DropdownMenuItem>
          ) : null}
        </DropdownMenuContent>
      </DropdownMenu>
      <SaveViewDialog
        open={dialog === "save"}
        onOpenChange={(next) => setDialog(next ? "save" : null)}
        list={saved.list}
        roles={saved.shareRoles}
        onCancelled={backToTrigger}
      />
      <ManageViewsDialog
        open={dialog === "manage"}
        onOpenChange={(next) => setDialog(next ? "manage" : null)}
        views={saved.views.filter((v) => v.manageable)}
        onClosed={backToTrigger}
      />
    </div>
  );
}

/**
 * Calls `onOk` once per successful answer of the fetcher, as soon as it arrives: before the page's
 * data is loaded again, which may unmount the form (a deleted view's row).
 */
function useAnswered(fetcher: { data?: Answer }, onOk: (answer: Answer) => void) {
  const seen = useRef<Answer | undefined>(undefined);
  const callback = useRef(onOk);
  callback.current = onOk;
  useEffect(() => {
    if (!fetcher.data || fetcher.data === seen.current) return;
    seen.current = fetcher.data;
    if (fetcher.data.ok) callback.current(fetcher.data);
  }, [fetcher.data]);
}

function SaveViewDialog({
  open,
  onOpenChange,
  list,
  roles,
  onCancelled,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  list: ViewList;
  roles: Role[];
  onCancelled: (event: Event) => void;
}) {
  const { t } = useTranslation();
  const succeeded = useRef(false);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={t("views:saveTitle")}
        description={t("views:saveDescription")}
        onCloseAutoFocus={(event) => {
          // A saved view's news is in the toast: focus goes there, not back to the menu.
          if (!succeeded.current) return onCancelled(event);
          succeeded.current = false;
          event.preventDefault();
          focusUpdates();
        }}
      >
        {open ? (
          <SaveViewForm
            list={list}
            roles={roles}
            onSaved={() => {
              succeeded.current = true;
              onOpenChange(false);
            }}
          />
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

function SaveViewForm({ list, roles, onSaved }: { list: ViewList; roles: Role[]; onSaved: () => void }) {
  const { t } = useTranslation();
  const { search } = useLocation();
  const navigate = useNavigate();
  const fetcher = useFetcher<Answer>();
  const [form, fields] = useAppForm({
    schema: createViewSchema,
    id: "save-view-form",
    intent: "view-create",
    action: API,
    lastResult: fetcher.data ?? null,
  });
  useAnswered(fetcher, (answer) => {
    if (!answer.view) return;
    showToast({ kind: "success", message: t("views:saved", { name: answer.view.name }) }, { result: true });
    onSaved();
    navigate(answer.view.url, { replace: true, preventScrollReset: true });
  });
  return (
    <fetcher.Form method="post" action={API} className="flex flex-col gap-4" {...getFormProps(form)}>
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

function ManageViewsDialog({
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
  const rename = useFetcher<Answer>();
  const remove = useFetcher<Answer>();
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

type ViewFetcher = ReturnType<typeof useFetcher<Answer>>;

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
  answer: Answer | null;
  onRename: () => void;
  focusAfterRename: React.RefObject<string | null>;
}) {
  const { t } = useTranslation();
  const row = useRef<HTMLDivElement>(null);
  const [form, fields] = useAppForm({
    schema: renameViewSchema,
    id: `rename-view-${view.id}`,
    intent: "view-rename",
    action: API,
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
        action={API}
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
      <remove.Form method="post" action={API}>
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
