import { useEffect, useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False on the server and while the page hydrates, true from the render after hydration (and at
 * once for anything mounted later). The header's menus render their Radix machinery only then: on
 * the server they are plain buttons that look the same, because without scripts a menu cannot open
 * anyway, and the widgets were about a quarter of a dashboard page's render (decision 041).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/**
 * Sets `<html data-hydrated>` once the page has hydrated and the widgets above have rendered their
 * machinery: the moment a click on them acts. The end-to-end tests wait for it (e2e/fixtures.ts)
 * instead of retrying clicks. A hook of the root layout, not a component of its own: an extra
 * element in the client's tree alone would shift every `useId` against the server's.
 */
export function useHydrationMarker() {
  const hydrated = useHydrated();
  useEffect(() => {
    if (hydrated) document.documentElement.dataset.hydrated = "";
  }, [hydrated]);
}
