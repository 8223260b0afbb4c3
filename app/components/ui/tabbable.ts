const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

function isTabbable(el: HTMLElement): boolean {
  // A closing menu is still in the DOM (in its portal) when focus moves on.
  if (el.tabIndex < 0 || el.closest("[inert],[hidden],[data-radix-popper-content-wrapper]")) return false;
  return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
}

/** Moves focus to the tabbable element after (1) or before (-1) `from` in document order. */
export function focusTabbableBeside(from: HTMLElement, direction: 1 | -1) {
  const all = [...document.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => el === from || isTabbable(el),
  );
  const next = all[all.indexOf(from) + direction];
  (next ?? from).focus();
}
