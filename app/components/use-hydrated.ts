import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False on the server and while the page hydrates, true from the render after hydration (and at
 * once for anything mounted later). The header's menus render their Radix machinery only then: on
 * the server they are plain buttons that look the same, because without scripts a menu cannot open
 * anyway, and the widgets were about a quarter of a dashboard page's render (decision 017).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
