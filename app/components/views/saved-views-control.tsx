import { Bookmark, Check, Settings2, Share2 } from "lucide-react";
import { useRef, useState } from "react";
import { useNavigate } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useTranslation } from "../../i18n/use-translation";
import type { SavedViewItem, ViewList } from "../../views/view-schemas";
import { Button } from "../ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "../ui/dropdown-menu";
import { ManageViewsDialog } from "./manage-views-dialog";
import { SaveViewDialog } from "./save-view-dialog";
import type { Role } from "./views-answer";

// The Views control of a list (users, audit log): open a saved view, save the list as it is
// filtered and sorted, rename or delete one's views. It posts to /api/views (app/routes/api.views.ts);
// what it lists comes from the page's loader (`viewsForList`), which also says which query the
// address shows, so the view open now is named on the trigger.

export type SavedViewsData = {
  list: ViewList;
  views: SavedViewItem[];
  /** The normalised query of the address the page shows; null when the list refuses it. */
  current: string | null;
  /** Roles a view may be shared with: empty unless the person may share. */
  shareRoles: Role[];
};

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
        onClosed={backToTrigger}
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
