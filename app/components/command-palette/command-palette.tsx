import { Command, useCommandState } from "cmdk";
import { Bookmark, Clock, FileDown, Keyboard, Mail, Search, UserPlus, Users, UsersRound } from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { useFetcher, useNavigate } from "react-router";
import type { LabelTranslations } from "../../access/label-translations";
import { useTranslation } from "../../i18n/use-translation";
import type { SavedViewItem } from "../../views/view-schemas";
import { menuIcon } from "../icons";
import { menuLabel } from "../sidebar-labels";
import { startFailureText, taskToastKey } from "../tasks/task-text";
import { useTaskNotifications } from "../tasks/use-task-notifications";
import { showToast } from "../toaster";
import { buttonVariants } from "../ui/button";
import { cn } from "../ui/cn";
import { Dialog, DialogContent } from "../ui/dialog";
import { type RecentItem, readRecent, rememberRecent } from "./recent";
import { ShortcutsDialog } from "./shortcuts-dialog";
import { useShortcuts } from "./use-shortcuts";

// ⌘K / Ctrl+K (and "/"): go to any page the person may open, find a person or a team, run what
// they may do; "?" lists the keys. cmdk gives the combobox and list semantics and the arrow keys.

type Page = { id: string; title: string; url: string; icon: string; translations?: LabelTranslations };
type Found = {
  users: { id: string; name: string; email: string; status: string }[];
  teams: { id: string; name: string }[];
};
type Action = { id: string; label: string; icon: typeof Mail; run: () => void };

const SEARCH_DELAY_MS = 200;
const itemClass =
  "flex cursor-pointer items-center gap-2 rounded-md px-2 py-2 text-sm data-[selected=true]:bg-accent data-[selected=true]:text-accent-foreground";
const groupClass =
  "[&_[cmdk-group-heading]]:px-2 [&_[cmdk-group-heading]]:pt-3 [&_[cmdk-group-heading]]:pb-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-muted-foreground";

/** Lower case without accents, so "rene" finds "René". */
const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase();

export function CommandPalette({
  userId,
  pages,
  may,
}: {
  userId: string;
  pages: Page[];
  /** Whether the person holds a permission (a super admin holds them all). */
  may: (permission: string) => boolean;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [help, setHelp] = useState(false);
  const keys = useMemo(() => ({ palette: () => setOpen(true), help: () => setHelp(true) }), []);
  useShortcuts(keys);
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-keyshortcuts="Control+K Meta+K /"
        aria-label={t("shell:palette.open")}
        className={cn(buttonVariants({ variant: "ghost", size: "icon" }))}
      >
        <Search aria-hidden className="size-5" />
      </button>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent title={t("shell:palette.title")} className="max-w-xl">
          {open ? (
            <PaletteBody
              userId={userId}
              pages={pages}
              may={may}
              close={() => setOpen(false)}
              showHelp={() => {
                setOpen(false);
                setHelp(true);
              }}
            />
          ) : null}
        </DialogContent>
      </Dialog>
      <ShortcutsDialog open={help} onOpenChange={setHelp} />
    </>
  );
}

function PaletteBody({
  userId,
  pages,
  may,
  close,
  showHelp,
}: {
  userId: string;
  pages: Page[];
  may: (permission: string) => boolean;
  close: () => void;
  showHelp: () => void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { start } = useTaskNotifications();
  const search = useFetcher<Found>();
  // Saved views of the lists the person may read (GET /api/views), once per opening; filtered here.
  const saved = useFetcher<{ views: SavedViewItem[] }>();
  const readsALists = may("user.read") || may("log.read");
  const [query, setQuery] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const [recent] = useState(() => readRecent(userId));
  const q = fold(query.trim());

  // biome-ignore lint/correctness/useExhaustiveDependencies: the fetcher's identity changes with its state
  useEffect(() => {
    const text = query.trim();
    if (!text) return;
    const timer = setTimeout(() => search.load(`/api/search?q=${encodeURIComponent(text)}`), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [query]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: loaded once when the palette opens
  useEffect(() => {
    if (readsALists) saved.load("/api/views");
  }, []);

  const go = (item: RecentItem) => {
    rememberRecent(userId, item);
    close();
    navigate(item.url);
  };
  const goTo = (url: string) => {
    close();
    navigate(url);
  };
  const startTask = async (type: string, payload: unknown, started: string) => {
    close();
    const outcome = await start(type, payload);
    showToast(
      outcome.ok
        ? { kind: "info", message: started, key: taskToastKey(outcome.taskId) }
        : { kind: "error", message: startFailureText(t, type, outcome) },
    );
  };

  const actions: Action[] = [
    may("user.write") && {
      id: "invite",
      label: t("shell:palette.action.invite"),
      icon: Mail,
      run: () => goTo("/dashboard/users?new=invite"),
    },
    may("user.write") && {
      id: "create-user",
      label: t("shell:palette.action.createUser"),
      icon: UserPlus,
      run: () => goTo("/dashboard/users?new=user"),
    },
    may("team.write") && {
      id: "create-team",
      label: t("shell:palette.action.createTeam"),
      icon: UsersRound,
      run: () => goTo("/dashboard/teams?new=team"),
    },
    may("log.read") && {
      id: "export-audit",
      label: t("shell:palette.action.exportAudit"),
      icon: FileDown,
      run: () => startTask("audit.export", { format: "csv" }, t("tasks:exportAudit.started")),
    },
    may("user.read") && {
      id: "export-users",
      label: t("shell:palette.action.exportUsers"),
      icon: FileDown,
      run: () => startTask("users.export", undefined, t("users:bulk.exportStarted")),
    },
    { id: "shortcuts", label: t("shell:palette.action.shortcuts"), icon: Keyboard, run: showHelp },
  ].filter((a): a is Action => Boolean(a));

  const shownPages = pages
    .map((p) => ({ ...p, label: menuLabel(t, p) }))
    .filter((p) => !q || fold(p.label).includes(q));
  const shownActions = actions.filter((a) => !q || fold(a.label).includes(q));
  const listName = (view: SavedViewItem) => t(`views:lists.${view.list}`);
  const shownViews = (saved.data?.views ?? []).filter(
    (v) => !q || fold(v.name).includes(q) || fold(listName(v)).includes(q),
  );
  const found = q && search.data ? search.data : { users: [], teams: [] };
  const nothing =
    !(!q && recent.length) &&
    !shownPages.length &&
    !found.users.length &&
    !found.teams.length &&
    !shownActions.length &&
    !shownViews.length &&
    search.state !== "loading";

  const shown = [
    ...(!q ? recent.map((r) => `recent:${r.kind}:${r.id}`) : []),
    ...shownPages.map((p) => `page:${p.id}`),
    ...shownViews.map((v) => `view:${v.id}`),
    ...found.users.map((u) => `user:${u.id}`),
    ...found.teams.map((team) => `team:${team.id}`),
    ...shownActions.map((a) => `action:${a.id}`),
  ];

  return (
    <Command shouldFilter={false} loop label={t("shell:palette.title")} className="flex flex-col gap-2">
      <KeepHighlight shown={shown} input={input} />
      <Command.Input
        ref={input}
        value={query}
        onValueChange={setQuery}
        placeholder={t("shell:palette.placeholder")}
        aria-label={t("shell:palette.placeholder")}
        className="block w-full rounded-md border border-input bg-card px-3 py-2 text-sm text-card-foreground placeholder:text-muted-foreground focus:border-ring"
      />
      {/* Status lines sit outside the listbox, which may hold options only. */}
      <p className="sr-only" role="status">
        {search.state === "loading" ? t("shell:palette.searching") : ""}
      </p>
      {nothing ? (
        <p className="px-2 py-6 text-center text-sm text-muted-foreground">{t("shell:palette.empty")}</p>
      ) : null}
      <Command.List
        className={cn("max-h-[50dvh] overflow-y-auto", nothing && "hidden")}
        aria-label={t("shell:palette.results")}
      >
        {!q && recent.length ? (
          <Command.Group heading={t("shell:palette.recent")} className={groupClass}>
            {recent.map((r) => (
              <Command.Item
                key={`recent:${r.kind}:${r.id}`}
                value={`recent:${r.kind}:${r.id}`}
                onSelect={() => go(r)}
                className={itemClass}
              >
                <Clock aria-hidden className="size-4 text-muted-foreground" />
                <span>{r.label}</span>
                {r.detail ? <span className="truncate text-muted-foreground">{r.detail}</span> : null}
              </Command.Item>
            ))}
          </Command.Group>
        ) : null}
        {shownPages.length ? (
          <Command.Group heading={t("shell:palette.pages")} className={groupClass}>
            {shownPages.map((p) => {
              const PageIcon = menuIcon(p.icon);
              return (
                <Command.Item
                  key={`page:${p.id}`}
                  value={`page:${p.id}`}
                  onSelect={() => go({ kind: "page", id: p.id, label: p.label, url: p.url })}
                  className={itemClass}
                >
                  <PageIcon aria-hidden className="size-4 text-muted-foreground" />
                  {p.label}
                </Command.Item>
              );
            })}
          </Command.Group>
        ) : null}
        {shownViews.length ? (
          <Command.Group heading={t("views:palette")} className={groupClass}>
            {shownViews.map((v) => (
              <Command.Item
                key={`view:${v.id}`}
                value={`view:${v.id}`}
                onSelect={() =>
                  go({ kind: "view", id: v.id, label: v.name, detail: listName(v), url: v.url })
                }
                className={itemClass}
              >
                <Bookmark aria-hidden className="size-4 text-muted-foreground" />
                <span>{v.name}</span>
                <span className="truncate text-muted-foreground">{listName(v)}</span>
              </Command.Item>
            ))}
          </Command.Group>
        ) : null}
        {found.users.length ? (
          <Command.Group heading={t("shell:palette.people")} className={groupClass}>
            {found.users.map((u) => (
              <Command.Item
                key={`user:${u.id}`}
                value={`user:${u.id}`}
                onSelect={() =>
                  go({
                    kind: "user",
                    id: u.id,
                    label: u.name,
                    detail: u.email,
                    url: `/dashboard/users/${u.id}`,
                  })
                }
                className={itemClass}
              >
                <Users aria-hidden className="size-4 text-muted-foreground" />
                <span>{u.name}</span>
                <span className="truncate text-muted-foreground">{u.email}</span>
                {u.status === "disabled" ? (
                  <span className="ml-auto text-xs text-muted-foreground">{t("users:status.disabled")}</span>
                ) : null}
              </Command.Item>
            ))}
          </Command.Group>
        ) : null}
        {found.teams.length ? (
          <Command.Group heading={t("shell:palette.teams")} className={groupClass}>
            {found.teams.map((team) => (
              <Command.Item
                key={`team:${team.id}`}
                value={`team:${team.id}`}
                onSelect={() =>
                  go({ kind: "team", id: team.id, label: team.name, url: `/dashboard/teams/${team.id}` })
                }
                className={itemClass}
              >
                <UsersRound aria-hidden className="size-4 text-muted-foreground" />
                {team.name}
              </Command.Item>
            ))}
          </Command.Group>
        ) : null}
        {shownActions.length ? (
          <Command.Group heading={t("shell:palette.actions")} className={groupClass}>
            {shownActions.map((a) => (
              <Command.Item
                key={`action:${a.id}`}
                value={`action:${a.id}`}
                onSelect={a.run}
                className={itemClass}
              >
                <a.icon aria-hidden className="size-4 text-muted-foreground" />
                {a.label}
              </Command.Item>
            ))}
          </Command.Group>
        ) : null}
      </Command.List>
    </Command>
  );
}

/**
 * cmdk highlights the first item when the text changes, but now and then left nothing highlighted
 * once the list settled ("invite a user": one action shown, Enter did nothing). Home, through
 * cmdk's own keys, highlights the first item with everything that goes with it (the input's
 * aria-activedescendant, scrolling); setting cmdk's value from outside updates neither.
 */
function KeepHighlight({
  shown,
  input,
}: {
  shown: string[];
  input: React.RefObject<HTMLInputElement | null>;
}) {
  const highlighted = useCommandState((state) => state.value);
  const lost = shown.length > 0 && !shown.includes(highlighted);
  useEffect(() => {
    if (lost) input.current?.dispatchEvent(new KeyboardEvent("keydown", { key: "Home", bubbles: true }));
  }, [lost, input]);
  return null;
}
