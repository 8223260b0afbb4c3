import { useEffect, useSyncExternalStore } from "react";

// The acts of the page on screen, offered by the palette under "On this page": the page registers
// them while it is shown (the same handlers as its own buttons and menus), the palette reads them.

export type PageAction = { id: string; label: string; keywords?: string[]; run: () => void };

const NONE: PageAction[] = [];
let current: PageAction[] = NONE;
const listeners = new Set<() => void>();

function set(next: PageAction[]) {
  current = next;
  for (const listener of listeners) listener();
}

/** `actions` should keep its identity across renders (useMemo), or it is registered on each. */
export function usePageActions(actions: PageAction[]) {
  useEffect(() => {
    set(actions);
    return () => {
      if (current === actions) set(NONE);
    };
  }, [actions]);
}

export function useOfferedPageActions(): PageAction[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
    () => NONE,
  );
}
