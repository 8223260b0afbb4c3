import { Command, useCommandState } from "cmdk";
import {
  BarChart3,
  Bookmark,
  Clock,
  FileDown,
  Keyboard,
  LogOut,
  Mail,
  Moon,
  Search,
  Settings2,
  Sun,
  SunMoon,
  UserPlus,
  Users,
  UsersRound,
  Zap,
} from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { useFetcher, useNavigate, useSubmit } from "react-router";
import type { LabelTranslations } from "../../access/label-translations";
import type { SettingsSection } from "../../access/settings-pages";
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
import { useOfferedPageActions } from "./page-actions";
import { morePages, pageKeywords, settingsEntries } from "./palette-entries";
import { fold, keywordList, rank } from "./palette-match";
import { type RecentItem, readRecent, rememberRecent } from "./recent";
import { ShortcutsDialog } from "./shortcuts-dialog";
import { useShortcuts } from "./use-shortcuts";

// ⌘K / Ctrl+K (and "/"): go to any page the person may open, find a person or a team, run what
// they may do; "?" lists the keys. cmdk gives the combobox and list semantics and the arrow keys.

type Page = { id: string; title: string; url: string; icon: string; translations?: LabelTranslations };
type Found = {
  /** The text these answer: a slower earlier answer is not shown for the text typed since. */
  q: string;
  users: { id: string; name: string; email: string; status: string }[];
  teams: { id: string; name: string }[];
};
type Action = { id: string; label: string; icon: typeof Mail; keywords?: string[]; run: () => void };

const SEARCH_DELAY_MS = 200;
const itemClass =
  "flex cursor-pointer items-center gap-2 rounded-md px-2 py-2 text-sm data-[selected=true]:bg-accent data-[selected=true]:text-accent-foreground";
const groupClass =
  "[&_[cmdk-group-heading]]:px-2 [&_[cmdk-group-heading]]:pt-3 [&_[cmdk-group-heading]]:pb-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-muted-foreground";

export function CommandPalette({
  userId,
  pages,
  sections,
  may,
  mayAnywhere,
}: {
  userId: string;
  pages: Page[];
  /** Settings' pages the person may open. */
  sections: SettingsSection[];
  /** Whether the person holds a permission over everyone (a super admin holds them all). */
  may: (permission: string) => boolean;
  /** Held within some team at least: the lists open, showing what is in reach. */
  mayAnywhere: (permission: string) => boolean;
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
              sections={sections}
              may={may}
              mayAnywhere={mayAnywhere}
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
  sections,
  may,
  mayAnywhere,
  close,
  showHelp,
}: {
  userId: string;
  pages: Page[];
  sections: SettingsSection[];
  may: (permission: string) => boolean;
  mayAnywhere: (permission: string) => boolean;
  close: () => void;
  showHelp: () => void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const submit = useSubmit();
  const pageActions = useOfferedPageActions();
  const { start } = useTaskNotifications();
  const search = useFetcher<Found>();
  // Saved views of the lists the person may read (GET /api/views), once per opening; filtered here.
  const saved = useFetcher<{ views: SavedViewItem[] }>();
  const readsALists = mayAnywhere("user.read") || mayAnywhere("log.read");
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

  const kw = (key: string) => keywordList(t(`shell:palette.keywords.${key}`));
  const theme = (value: "light" | "dark" | "system") => () => {
    close();
    document.documentElement.dataset.theme = value;
    submit({ theme: value }, { method: "post", action: "/theme", navigate: false, fetcherKey: "theme" });
  };
  // Offered once something is typed: the palette opens on the everyday ones.
  const searchedActions: Action[] = [
    {
      id: "report",
      label: t("shell:palette.action.report"),
      icon: BarChart3,
      keywords: kw("report"),
      run: () => startTask("report.generate", {}, t("tasks:actions.started")),
    },
    {
      id: "dark",
      label: t("shell:palette.action.dark"),
      icon: Moon,
      keywords: kw("dark"),
      run: theme("dark"),
    },
    {
      id: "light",
      label: t("shell:palette.action.light"),
      icon: Sun,
      keywords: kw("light"),
      run: theme("light"),
    },
    {
      id: "system-theme",
      label: t("shell:palette.action.systemTheme"),
      icon: SunMoon,
      keywords: kw("systemTheme"),
      run: theme("system"),
    },
    {
      id: "sign-out",
      label: t("shell:signOut"),
      icon: LogOut,
      keywords: kw("signOut"),
      run: () => {
        close();
        submit(null, { method: "post", action: "/logout" });
      },
    },
  ];

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
    ...(q ? searchedActions : []),
  ].filter((a): a is Action => Boolean(a));

  const allPages = [
    ...pages.map((p) => ({ ...p, label: menuLabel(t, p), keywords: pageKeywords(t, p.url) })),
    ...(q ? morePages(t, may).map((p) => ({ ...p, icon: p.id === "tasks" ? "Activity" : "FileText" })) : []),
  ];
  const shownPages = rank(allPages, query, (p) => p);
  const shownSections = q ? rank(settingsEntries(t, sections), query, (s) => s) : [];
  const shownHere = rank(pageActions, query, (a) => a);
  const shownActions = rank(actions, query, (a) => a);
  const listName = (view: SavedViewItem) => t(`views:lists.${view.list}`);
  const shownViews = rank(saved.data?.views ?? [], query, (v) => ({
    label: v.name,
    keywords: [listName(v), ...kw("views")],
  }));
  const found = q && search.data?.q === query.trim() ? search.data : { q: "", users: [], teams: [] };
  // The list page's own search goes past the few people shown here.
  const searchAll = q && mayAnywhere("user.read") && found.users.length ? query.trim() : null;
  const nothing =
    !(!q && recent.length) &&
    !shownPages.length &&
    !shownSections.length &&
    !shownHere.length &&
    !found.users.length &&
    !found.teams.length &&
    !shownActions.length &&
    !shownViews.length &&
    !searchAll &&
    // Not "nothing" before the people and teams for this text have answered.
    !(q && search.data?.q !== query.trim()) &&
    search.state !== "loading";

  const shown = [
    ...(!q ? recent.map((r) => `recent:${r.kind}:${r.id}`) : []),
    ...shownHere.map((a) => `here:${a.id}`),
    ...shownPages.map((p) => `page:${p.id}`),
    ...shownSections.map((s) => `page:${s.id}`),
    ...shownViews.map((v) => `view:${v.id}`),
    ...found.users.map((u) => `user:${u.id}`),
    ...(searchAll ? ["search-users"] : []),
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
        {shownHere.length ? (
          <Command.Group heading={t("shell:palette.here")} className={groupClass}>
            {shownHere.map((a) => (
              <Command.Item
                key={`here:${a.id}`}
                value={`here:${a.id}`}
                onSelect={() => {
                  close();
                  a.run();
                }}
                className={itemClass}
              >
                <Zap aria-hidden className="size-4 text-muted-foreground" />
                {a.label}
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
        {shownSections.length ? (
          <Command.Group heading={t("shell:palette.settings")} className={groupClass}>
            {shownSections.map((s) => (
              <Command.Item
                key={`page:${s.id}`}
                value={`page:${s.id}`}
                onSelect={() => go({ kind: "page", id: s.id, label: s.label, url: s.url })}
                className={itemClass}
              >
                <Settings2 aria-hidden className="size-4 text-muted-foreground" />
                {s.label}
              </Command.Item>
            ))}
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
        {found.users.length || searchAll ? (
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
            {searchAll ? (
              <Command.Item
                value="search-users"
                onSelect={() => goTo(`/dashboard/users?q=${encodeURIComponent(searchAll)}`)}
                className={itemClass}
              >
                <Search aria-hidden className="size-4 text-muted-foreground" />
                {t("shell:palette.searchAllUsers", { query: searchAll })}
              </Command.Item>
            ) : null}
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
