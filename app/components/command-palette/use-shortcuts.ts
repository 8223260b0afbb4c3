import { useEffect } from "react";

/** Typing in a field: "/" and "?" are characters there, not shortcuts. */
export function typing(target: EventTarget | null) {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * The dashboard's keys: Ctrl+K or ⌘K opens the command palette anywhere, "/" opens it to search,
 * "?" lists the shortcuts (both only when not typing in a field, and not inside a dialog).
 */
export function useShortcuts(on: { palette: () => void; help: () => void }) {
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if ((event.metaKey || event.ctrlKey) && !event.altKey && event.key.toLowerCase() === "k") {
        event.preventDefault();
        on.palette();
        return;
      }
      if (event.metaKey || event.ctrlKey || event.altKey || typing(event.target)) return;
      if (event.target instanceof Element && event.target.closest("[role=dialog],[role=alertdialog]")) return;
      if (event.key === "/") {
        event.preventDefault();
        on.palette();
      } else if (event.key === "?") {
        event.preventDefault();
        on.help();
      }
    };
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, [on]);
}
