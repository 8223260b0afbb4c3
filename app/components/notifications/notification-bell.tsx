import type { TFunction } from "i18next";
import { Bell, ShieldAlert } from "lucide-react";
import { useEffect, useState } from "react";
import { Link, useFetcher } from "react-router";
import { currentSettingsLink } from "../../access/settings-pages";
import { onStreamOpen, onSystemEvent } from "../../events/event-source";
import { useTranslation } from "../../i18n/use-translation";
import { useFormat } from "../format";
import { showToast } from "../toaster";
import { Badge, countBadgeVariants } from "../ui/badge";
import { buttonVariants } from "../ui/button";
import { cn } from "../ui/cn";
import { linkVariants } from "../ui/link";
import { Popover, PopoverContent, PopoverTrigger } from "../ui/popover";
import { Tooltip } from "../ui/tooltip";
import { useHydrated } from "../use-hydrated";
import { LevelBadge } from "./level-badge";

type Item = {
  id: string;
  kind: "broadcast" | "security";
  sender: string | null;
  title: string;
  message: string;
  level: string;
  link: string | null;
  read_at: string | null;
  created_at: string;
};
type ListData = { notifications: Item[]; unread: number };

/** A notice someone wrote never looks like a security notice, however it is worded (docs/rules.md, "Broadcast"). */
function origin(t: TFunction, n: Pick<Item, "kind" | "sender">) {
  if (n.kind === "security") return t("shell:notifications.security");
  return n.sender ? t("shell:notifications.from", { name: n.sender }) : t("shell:notifications.fromGone");
}

/** Another host only for a broadcast from before links had to stay inside; named in full. */
function NoticeLink({ link }: { link: string }) {
  const { t } = useTranslation();
  const className = linkVariants();
  if (link.startsWith("/") && !link.startsWith("//") && !link.startsWith("/\\"))
    return (
      <Link to={currentSettingsLink(link)} className={className}>
        {t("shell:notifications.open")}
      </Link>
    );
  let host = link;
  try {
    host = new URL(link).host;
  } catch {}
  return (
    <a href={link} rel="noopener noreferrer" target="_blank" className={className}>
      {t("shell:notifications.openExternal", { host })}
    </a>
  );
}

const TOAST_KIND = { info: "info", success: "success", warning: "warning", critical: "error" } as const;

export function NotificationBell({ initialUnread }: { initialUnread: number }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const list = useFetcher<ListData>();
  const mark = useFetcher<{ ok: boolean; unread: number }>();
  const [open, setOpen] = useState(false);
  const [unread, setUnread] = useState(initialUnread);
  const [live, setLive] = useState<Item[]>([]);
  const load = list.load;

  useEffect(() => {
    const offEvent = onSystemEvent("broadcast", (e) => {
      setUnread((n) => n + 1);
      setLive((items) => [
        {
          id: e.notificationId,
          kind: e.kind,
          sender: e.sender,
          title: e.title,
          message: e.message,
          level: e.level,
          link: e.link,
          read_at: null,
          created_at: new Date().toISOString(),
        },
        ...items,
      ]);
      showToast({ kind: TOAST_KIND[e.level], message: `${origin(t, e)}: ${e.title}: ${e.message}` });
    });
    const offOpen = onStreamOpen(() => load("/api/notifications"));
    return () => {
      offEvent();
      offOpen();
    };
  }, [load, t]);

  useEffect(() => {
    if (list.data) {
      setUnread(list.data.unread);
      setLive([]);
    }
  }, [list.data]);
  useEffect(() => {
    if (mark.data?.ok) load("/api/notifications");
  }, [mark.data, load]);

  const items = [...live, ...(list.data?.notifications ?? [])];
  const label = t("shell:notifications.button", { count: unread });
  const className = cn(buttonVariants({ variant: "ghost", size: "icon" }), "relative");
  const face = (
    <>
      <Bell aria-hidden className="size-5" />
      {unread > 0 ? (
        <span
          aria-hidden
          data-testid="unread-count"
          className={countBadgeVariants({ variant: "destructive" })}
        >
          {unread}
        </span>
      ) : null}
    </>
  );
  const hydrated = useHydrated();
  if (!hydrated)
    return (
      <button
        type="button"
        aria-haspopup="dialog"
        aria-expanded={false}
        aria-label={label}
        className={className}
      >
        {face}
      </button>
    );
  return (
    <Popover
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) load("/api/notifications");
      }}
    >
      <Tooltip content={t("shell:notifications.title")}>
        <PopoverTrigger aria-label={label} className={className}>
          {face}
        </PopoverTrigger>
      </Tooltip>
      <PopoverContent label={t("shell:notifications.title")} className="w-80">
        <div className="flex items-center justify-between px-2 py-1">
          <h2 className="text-sm font-semibold">{t("shell:notifications.title")}</h2>
          <mark.Form method="post" action="/api/notifications">
            <input type="hidden" name="intent" value="read-all" />
            <button
              type="submit"
              className={cn(linkVariants(), "text-xs disabled:opacity-50")}
              disabled={unread === 0}
            >
              {t("shell:notifications.markAllRead")}
            </button>
          </mark.Form>
        </div>
        {list.state === "loading" && items.length === 0 ? (
          <p className="px-2 py-3 text-sm">{t("shell:notifications.loading")}</p>
        ) : null}
        {list.state === "idle" && items.length === 0 ? (
          <p className="px-2 py-3 text-sm text-muted-foreground">{t("shell:notifications.empty")}</p>
        ) : null}
        <ul className="max-h-96 overflow-y-auto">
          {items.map((n) => (
            <li key={n.id} className={cn("rounded px-2 py-2 text-sm", !n.read_at && "bg-primary/5")}>
              {n.kind === "security" ? (
                <Badge variant="destructive">
                  <ShieldAlert aria-hidden className="mr-1 inline size-3" />
                  {origin(t, n)}
                </Badge>
              ) : (
                <p className="text-xs text-muted-foreground">{origin(t, n)}</p>
              )}
              <p className="font-medium">
                {n.title} <LevelBadge level={n.level} />
              </p>
              <p>{n.message}</p>
              <p className="mt-1 flex items-center gap-3 text-xs text-muted-foreground">
                {formatDateTime(n.created_at)}
                {n.link ? <NoticeLink link={n.link} /> : null}
                {!n.read_at ? (
                  <mark.Form method="post" action="/api/notifications">
                    <input type="hidden" name="intent" value="read" />
                    <input type="hidden" name="id" value={n.id} />
                    <button type="submit" className="underline">
                      {t("shell:notifications.markRead")}
                    </button>
                  </mark.Form>
                ) : null}
              </p>
            </li>
          ))}
        </ul>
      </PopoverContent>
    </Popover>
  );
}
