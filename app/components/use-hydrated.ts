import { useEffect, useSyncExternalStore } from "react";

const subscribe = () => () => {};

/** The header's menus render their Radix machinery only then: a quarter of a page's render (decision 041), useless without scripts. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/** e2e tests wait for it instead of retrying clicks; a hook, as an extra element would shift every `useId`. */
export function useHydrationMarker() {
  const hydrated = useHydrated();
  useEffect(() => {
    if (hydrated) document.documentElement.dataset.hydrated = "";
  }, [hydrated]);
}
