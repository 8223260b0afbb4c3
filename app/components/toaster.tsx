import { CircleCheck, CircleX, Info, TriangleAlert, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { useTranslation } from "../i18n/use-translation";
import { typing } from "./command-palette/use-shortcuts";
import { useToastPlacement } from "./toast-placement";
import { cn } from "./ui/cn";
import { linkVariants } from "./ui/link";

export type ToastMessage = {
  kind: "success" | "error" | "warning" | "info";
  message: string;
  download?: { href: string; label: string };
  undo?: string;
  /** A later toast with the same key replaces this one, where it stands (a task's "started" by its outcome). */
  key?: string;
  /** The last word under its key: a "started" that arrives after the outcome is not shown. */
  settles?: boolean;
};
type Item = ToastMessage & { id: number };

// Opaque over the page; the kind shows in its edge and icon.
const STYLES = {
  success: "border-l-success [&>svg]:text-success",
  error: "border-l-destructive [&>svg]:text-destructive",
  warning: "border-l-warning [&>svg]:text-warning",
  info: "border-l-primary [&>svg]:text-primary",
} as const;
const ICONS = { success: CircleCheck, error: CircleX, warning: TriangleAlert, info: Info } as const;
// Errors stay until dismissed: someone may need to copy them.
const LIFETIME_MS = 6000;
// Longer, so the Undo button can be reached from the keyboard.
const UNDO_LIFETIME_MS = 10_000;
// A taller stack covers the page's own controls (issue 36).
const SHOWN = 3;

let push: ((t: ToastMessage) => void) | undefined;

/** Announced by the live region; never moves the focus (decision 038). */
export function showToast(toast: ToastMessage) {
  push?.(toast);
}

/** Ctrl+Z / ⌘Z outside a text field and a dialog: what the page's own Undo would mean. */
function isUndoKey(event: KeyboardEvent): boolean {
  if (!(event.metaKey || event.ctrlKey) || event.altKey || event.shiftKey) return false;
  if (event.key.toLowerCase() !== "z" || typing(event.target)) return false;
  return !(event.target instanceof Element && event.target.closest("[role=dialog],[role=alertdialog]"));
}

/**
 * The region is in the page from the start, as a live region added with its text is often not
 * read. The newest toast comes first, for Tab and for Ctrl+Z; it stands clear of the focused
 * control, dialogs and menus (decision 038).
 */
export function Toaster({ toast }: { toast: ToastMessage | null }) {
  const { t } = useTranslation();
  const [items, setItems] = useState<Item[]>([]);
  const [paused, setPaused] = useState(false);
  const region = useRef<HTMLElement>(null);
  // Where the keyboard came from into the toasts, to go back there when the toast it is on goes.
  const cameFrom = useRef<HTMLElement | null>(null);
  const undoers = useRef(new Map<number, () => void>());

  useEffect(() => {
    const settled = new Set<string>();
    push = (next) => {
      if (next.key && settled.has(next.key) && !next.settles) return;
      if (next.key && next.settles) settled.add(next.key);
      setItems((list) => {
        const id = Date.now() + Math.random();
        const replaced = next.key ? list.findIndex((x) => x.key === next.key) : -1;
        if (replaced === -1) return [{ ...next, id }, ...list].slice(0, SHOWN);
        return list.map((x, i) => (i === replaced ? { ...next, id } : x));
      });
    };
    return () => {
      push = undefined;
    };
  }, []);

  // A toast from the server comes once per key, however many page loads read its cookie.
  const shown = useRef(new Set<string>());
  useEffect(() => {
    if (!toast) return;
    if (toast.key) {
      if (shown.current.has(toast.key)) return;
      shown.current.add(toast.key);
    }
    push?.(toast);
  }, [toast]);

  useEffect(() => {
    const newest = items.find((x) => x.undo);
    if (!newest) return;
    const listener = (event: KeyboardEvent) => {
      if (!isUndoKey(event)) return;
      event.preventDefault();
      undoers.current.get(newest.id)?.();
    };
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, [items]);

  useEffect(() => {
    const oldest = [...items].reverse().find((x) => x.kind !== "error");
    if (!oldest || paused) return;
    const timer = setTimeout(
      () => setItems((list) => list.filter((x) => x.id !== oldest.id)),
      oldest.undo ? UNDO_LIFETIME_MS : LIFETIME_MS,
    );
    return () => clearTimeout(timer);
  }, [items, paused]);

  const placement = useToastPlacement(region, items.length > 0, items);

  const dismiss = (id: number) => {
    const focusInside = region.current?.contains(document.activeElement);
    setItems((list) => list.filter((x) => x.id !== id));
    if (!focusInside) return;
    const back = cameFrom.current;
    if (back?.isConnected) back.focus();
    else region.current?.focus();
  };
  const newestUndo = items.find((x) => x.undo)?.id;

  return (
    <section
      ref={region}
      tabIndex={-1}
      aria-label={t("shell:toaster.label")}
      aria-live="polite"
      onKeyDown={(e) => {
        const newest = items[0];
        if (e.key === "Escape" && newest) {
          e.stopPropagation();
          dismiss(newest.id);
        }
      }}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={(e) => {
        setPaused(true);
        const from = e.relatedTarget;
        if (from instanceof HTMLElement && !e.currentTarget.contains(from)) cameFrom.current = from;
      }}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setPaused(false);
      }}
      style={{ [placement.edge]: placement.offset }}
      className={cn(
        "fixed inset-x-2 z-[60] flex flex-col gap-2 rounded-md sm:inset-x-auto sm:right-4 sm:w-80",
        // A modal dialog turns the page's pointer events off; the toasts above its overlay keep theirs.
        items.length === 0 ? "pointer-events-none" : "pointer-events-auto",
      )}
    >
      {items.map((item) => {
        const Icon = ICONS[item.kind];
        return (
          <div
            key={item.id}
            role="status"
            className={cn(
              "flex items-start gap-2 rounded-md border border-l-4 bg-popover p-3 text-popover-foreground shadow",
              STYLES[item.kind],
            )}
          >
            <Icon aria-hidden className="mt-0.5 size-4 shrink-0" />
            <div className="flex-1 text-sm">
              <p>{item.message}</p>
              {item.download ? (
                <a className={cn(linkVariants(), "mt-1 inline-block")} href={item.download.href} download>
                  {item.download.label}
                </a>
              ) : null}
            </div>
            {item.undo ? (
              <UndoButton
                token={item.undo}
                message={item.message}
                shortcut={item.id === newestUndo}
                register={(submit) => {
                  if (submit) undoers.current.set(item.id, submit);
                  else undoers.current.delete(item.id);
                }}
                onAnswer={(answer) => {
                  dismiss(item.id);
                  push?.(answer);
                }}
              />
            ) : null}
            <button
              type="button"
              aria-label={t("shell:toaster.dismiss", { message: item.message })}
              onClick={() => dismiss(item.id)}
              className="rounded p-0.5 hover:bg-accent"
            >
              <X aria-hidden className="size-4" />
            </button>
          </div>
        );
      })}
    </section>
  );
}

type UndoAnswer = { ok?: boolean; message?: string; formError?: string | null };

function UndoButton({
  token,
  message,
  shortcut,
  register,
  onAnswer,
}: {
  token: string;
  message: string;
  /** The newest Undo answers Ctrl+Z / ⌘Z. */
  shortcut: boolean;
  register: (submit: (() => void) | null) => void;
  onAnswer: (answer: ToastMessage) => void;
}) {
  const { t } = useTranslation();
  const fetcher = useFetcher<UndoAnswer>();
  const busy = fetcher.state !== "idle";
  const answer = fetcher.data;
  const handler = useRef(onAnswer);
  handler.current = onAnswer;
  const registered = useRef(register);
  registered.current = register;
  const idle = !busy;
  useEffect(() => {
    registered.current(
      idle ? () => fetcher.submit({ token }, { method: "post", action: "/api/undo" }) : null,
    );
    return () => registered.current(null);
  }, [idle, token, fetcher.submit]);
  useEffect(() => {
    if (!answer) return;
    handler.current(
      answer.ok
        ? { kind: "success", message: answer.message ?? "" }
        : { kind: "error", message: answer.formError ?? answer.message ?? "" },
    );
  }, [answer]);
  return (
    <fetcher.Form method="post" action="/api/undo" className="mt-1">
      <input type="hidden" name="token" value={token} />
      <button
        type="submit"
        aria-keyshortcuts={shortcut ? "Control+Z Meta+Z" : undefined}
        onClick={(e) => {
          if (busy) e.preventDefault();
        }}
        className={cn(linkVariants(), "font-medium")}
      >
        {busy ? t("shell:toaster.undoing") : t("shell:toaster.undo")}
        <span className="sr-only">{t("shell:toaster.undoWhat", { message })}</span>
      </button>
    </fetcher.Form>
  );
}
