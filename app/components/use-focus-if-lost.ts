import { type RefObject, useEffect, useRef } from "react";

/**
 * When an act removed the control that had the focus (Disable became Enable), the focus goes to
 * `target` instead of falling to the page's start; where the focus still is, it stays. Runs when
 * `cue` changes after the first render, never on a page load.
 */
export function useFocusIfLost(target: RefObject<HTMLElement | null>, cue: unknown) {
  const last = useRef(cue);
  useEffect(() => {
    if (Object.is(last.current, cue)) return;
    last.current = cue;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    target.current?.focus();
  }, [cue, target]);
}
