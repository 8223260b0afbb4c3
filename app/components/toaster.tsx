import { CircleCheck, CircleX, Info, X } from "lucide-react";
import { useEffect, useState } from "react";

export type ToastMessage = { kind: "success" | "error" | "info"; message: string };

const STYLES = {
  success: "border-emerald-600 bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100",
  error: "border-red-600 bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-100",
  info: "border-indigo-600 bg-indigo-50 text-indigo-900 dark:bg-indigo-950 dark:text-indigo-100",
} as const;
const ICONS = { success: CircleCheck, error: CircleX, info: Info } as const;

let push: ((t: ToastMessage) => void) | undefined;

/** Shows a toast from anywhere on the client (e.g. when a live event arrives). */
export function showToast(toast: ToastMessage) {
  push?.(toast);
}

/** Renders the flash toast from the root loader and any pushed at run time. */
export function Toaster({ toast }: { toast: ToastMessage | null }) {
  const [items, setItems] = useState<(ToastMessage & { id: number })[]>([]);

  useEffect(() => {
    push = (t) => setItems((list) => [...list.slice(-3), { ...t, id: Date.now() + Math.random() }]);
    return () => {
      push = undefined;
    };
  }, []);

  useEffect(() => {
    if (toast) push?.(toast);
  }, [toast]);

  useEffect(() => {
    if (items.length === 0) return;
    const timer = setTimeout(() => setItems((list) => list.slice(1)), 6000);
    return () => clearTimeout(timer);
  }, [items]);

  return (
    <section
      aria-live="polite"
      aria-label="Notifications"
      className="fixed right-4 bottom-4 z-50 flex w-80 flex-col gap-2"
    >
      {items.map((t) => {
        const Icon = ICONS[t.kind];
        return (
          <div
            key={t.id}
            role="status"
            className={`flex items-start gap-2 rounded-md border-l-4 p-3 shadow ${STYLES[t.kind]}`}
          >
            <Icon aria-hidden className="mt-0.5 size-4 shrink-0" />
            <p className="flex-1 text-sm">{t.message}</p>
            <button
              type="button"
              aria-label="Dismiss notification"
              onClick={() => setItems((list) => list.filter((x) => x.id !== t.id))}
              className="rounded p-0.5"
            >
              <X aria-hidden className="size-4" />
            </button>
          </div>
        );
      })}
    </section>
  );
}
