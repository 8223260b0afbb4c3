import { CircleCheck, CircleX, Info, TriangleAlert, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "../i18n/use-translation";
import { cn } from "./ui/cn";
import { linkVariants } from "./ui/link";

export type ToastMessage = {
  kind: "success" | "error" | "warning" | "info";
  message: string;
  /** A file the news is about (a finished export): a download link in the toast itself. */
  download?: { href: string; label: string };
};
type Item = ToastMessage & { id: number };

// A toast floats over the page, so it is opaque (the popover token); the kind shows in its edge and icon.
const STYLES = {
  success: "border-l-success [&>svg]:text-success",
  error: "border-l-destructive [&>svg]:text-destructive",
  warning: "border-l-warning [&>svg]:text-warning",
  info: "border-l-primary [&>svg]:text-primary",
} as const;
const ICONS = { success: CircleCheck, error: CircleX, warning: TriangleAlert, info: Info } as const;
// Success and info fade after this; errors stay until dismissed (someone may need to copy them).
const LIFETIME_MS = 6000;

let push: ((t: ToastMessage, result: boolean) => void) | undefined;

/**
 * Shows a toast from anywhere on the client. `result: true` marks the outcome of something the
 * user just did (a submit, a button): if their focus was lost on the way (the button unmounted or
 * was disabled, the page changed), it goes to the toast. Live news (a broadcast, a task finishing
 * in the background) never moves focus.
 */
export function showToast(toast: ToastMessage, { result = false }: { result?: boolean } = {}) {
  push?.(toast, result);
}

let regionElement: HTMLElement | null = null;

/**
 * Moves focus to the toast region: for a result whose trigger is going away on purpose (a dialog
 * that closes once its form succeeded), where handing focus back to the trigger would hide the news.
 */
export function focusUpdates() {
  regionElement?.focus();
}

function focusWasLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected;
}

/**
 * The one toast region. It is in the page from the start (a live region added together with its
 * text is often not read) and each toast is a role=status. Escape inside it dismisses the newest,
 * every toast has a dismiss button, and the timer pauses while the pointer or focus is inside.
 * On phones it sits at the top, clear of the buttons at the bottom of forms.
 * The flash toast of the root loader is the result of a submit, so it follows the focus rule too.
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
    const timer = setTimeout(() => setItems((list) => list.filter((x) => x.id !== oldest.id)), LIFETIME_MS);
    return () => clearTimeout(timer);
  }, [items, paused]);

  const dismiss = (id: number) => {
    const focusInside = region.current?.contains(document.activeElement);
    setItems((list) => list.filter((x) => x.id !== id));
    // The dismiss button goes away with its toast; keep focus in the region, not on <body>.
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
      className={`fixed inset-x-2 top-2 z-50 flex flex-col gap-2 rounded-md sm:inset-x-auto sm:top-auto sm:right-4 sm:bottom-4 sm:w-80 ${items.length === 0 ? "pointer-events-none" : ""}`}
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
