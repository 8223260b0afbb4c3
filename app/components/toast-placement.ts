import { type RefObject, useCallback, useLayoutEffect, useState } from "react";

// Top right below the header, unless that would cover the focused control, an open dialog, popover
// or menu (decision 038).

export type Placement = { edge: "top" | "bottom"; offset: number };

const GAP = 8;
// Radix popovers (the task centre, the bell) are dialogs too.
const OVERLAYS =
  ':is([role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"])[data-state="open"]';

type Box = { top: number; bottom: number; left: number; right: number };

/** The area two boxes share. */
const overlap = (a: Box, b: Box) =>
  Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
  Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
const covered = (at: Box, clear: Box[]) => clear.reduce((sum, box) => sum + overlap(at, box), 0);

/** The header scrolls away with the page. */
function belowHeader(): number {
  const header = document.querySelector("body header");
  const bottom = header ? header.getBoundingClientRect().bottom : 0;
  return Math.max(0, bottom) + GAP;
}

function keepClear(region: HTMLElement): Box[] {
  const boxes: Box[] = [];
  const active = document.activeElement;
  if (active && active !== document.body && !region.contains(active))
    boxes.push(active.getBoundingClientRect());
  for (const dialog of document.querySelectorAll(OVERLAYS)) boxes.push(dialog.getBoundingClientRect());
  return boxes;
}

function choosePlacement(region: HTMLElement): Placement {
  const top = belowHeader();
  const { left, right, height } = region.getBoundingClientRect();
  if (height === 0) return { edge: "top", offset: top };
  const clear = keepClear(region);
  const atTop = covered({ top, bottom: top + height, left, right }, clear);
  if (atTop === 0) return { edge: "top", offset: top };
  const bottom = window.innerHeight - GAP * 2;
  const atBottom = covered({ top: bottom - height, bottom, left, right }, clear);
  // Where both would cover something, the lesser harm.
  return atBottom < atTop ? { edge: "bottom", offset: GAP * 2 } : { edge: "top", offset: top };
}

export function useToastPlacement(region: RefObject<HTMLElement | null>, active: boolean, items: unknown) {
  const [placement, setPlacement] = useState<Placement>({ edge: "top", offset: 64 });
  const update = useCallback(() => {
    if (!region.current) return;
    const next = choosePlacement(region.current);
    setPlacement((now) => (now.edge === next.edge && now.offset === next.offset ? now : next));
  }, [region]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the toasts shown change the region's size
  useLayoutEffect(() => {
    if (!active) return;
    update();
    const events = ["scroll", "resize", "focusin"] as const;
    for (const e of events) window.addEventListener(e, update, { passive: true });
    const observer = new MutationObserver(update);
    observer.observe(document.body, { childList: true });
    return () => {
      for (const e of events) window.removeEventListener(e, update);
      observer.disconnect();
    };
  }, [active, update, items]);
  return placement;
}
