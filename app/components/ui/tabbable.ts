const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

function isTabbable(el: HTMLElement): boolean {
  if (el.tabIndex < 0 || el.closest("[inert],[hidden]")) return false;
  return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
}

/** The elements Tab reaches inside `container`, in order. */
export function tabbablesIn(container: ParentNode): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(isTabbable);
}

/**
 * Moves focus to the tabbable element after (1) or before (-1) `from` in document order, skipping
 * floating panels (a closing menu or popover is still in the DOM when focus moves on).
 */
export function focusTabbableBeside(from: HTMLElement, direction: 1 | -1) {
  const all = tabbablesIn(document).filter(
    (el) => el === from || !el.closest("[data-radix-popper-content-wrapper]"),
  );
  const next = all[all.indexOf(from) + direction];
  (next ?? from).focus();
}
