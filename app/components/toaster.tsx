import { CircleCheck, CircleX, Info, TriangleAlert, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { useTranslation } from "../i18n/use-translation";
import { useToastPlacement } from "./toast-placement";
import { cn } from "./ui/cn";
import { linkVariants } from "./ui/link";

export type ToastMessage = {
  kind: "success" | "error" | "warning" | "info";
  message: string;
  download?: { href: string; label: string };
  undo?: string;
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

let push: ((t: ToastMessage, result: boolean) => void) | undefined;

/** `result: true`: if the user's focus was lost on the way (the button unmounted), it goes to the toast. */
export function showToast(toast: ToastMessage, { result = false }: { result?: boolean } = {}) {
  push?.(toast, result);
}

let regionElement: HTMLElement | null = null;

/** For a dialog that closes once its form succeeded, where focus back on the trigger would hide the news. */
export function focusUpdates() {
  regionElement?.focus();
}

function focusWasLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected;
}

/**
 * The region is in the page from the start, as a live region added with its text is often not
 * read; it moves to the bottom when it would cover the focused control (decision 038).
 */
export function Toaster({ toast }: { toast: ToastMessage | null }) {
  const { t } = useTranslation();
  const [items, setItems] = useState<Item[]>([]);
  const [paused, setPaused] = useState(false);
  const region = useRef<HTMLElement>(null);
  const takeFocus = useRef(false);

  useEffect(() => {
    regionElement = region.current;
    push = (t, result) => {
      if (result && focusWasLost()) takeFocus.current = true;
      setItems((list) => [...list.slice(-3), { ...t, id: Date.now() + Math.random() }]);
    };
    return () => {
      push = undefined;
      regionElement = null;
    };
  }, []);

  useEffect(() => {
    if (toast) push?.(toast, true);
  }, [toast]);

  useEffect(() => {
    if (takeFocus.current && items.length > 0) {
      takeFocus.current = false;
      region.current?.focus();
    }
  }, [items]);

  useEffect(() => {
    const oldest = items.find((t) => t.kind !== "error");
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
    if (focusInside) region.current?.focus();
  };

  return (
    <section
      ref={region}
      tabIndex={-1}
      aria-label={t("shell:toaster.label")}
      aria-live="polite"
      onKeyDown={(e) => {
        const newest = items.at(-1);
        if (e.key === "Escape" && newest) {
          e.stopPropagation();
          dismiss(newest.id);
        }
      }}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
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
                onAnswer={(answer) => {
                  dismiss(item.id);
                  push?.(answer, true);
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
  onAnswer,
}: {
  token: string;
  message: string;
  onAnswer: (answer: ToastMessage) => void;
}) {
  const { t } = useTranslation();
  const fetcher = useFetcher<UndoAnswer>();
  const busy = fetcher.state !== "idle";
  const answer = fetcher.data;
  const handler = useRef(onAnswer);
  handler.current = onAnswer;
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
