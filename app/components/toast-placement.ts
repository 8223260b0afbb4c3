import { type RefObject, useCallback, useLayoutEffect, useState } from "react";

// Top right below the header, unless that would cover the focused control or an open dialog (decision 038).

export type Placement = { edge: "top" | "bottom"; offset: number };

const GAP = 8;
const DIALOGS = '[role="dialog"][data-state="open"], [role="alertdialog"][data-state="open"]';

type Box = { top: number; bottom: number; left: number; right: number };

const overlaps = (a: Box, b: Box) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

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
  for (const dialog of document.querySelectorAll(DIALOGS)) boxes.push(dialog.getBoundingClientRect());
  return boxes;
}

function choosePlacement(region: HTMLElement): Placement {
  const top = belowHeader();
  const { left, right, height } = region.getBoundingClientRect();
  if (height === 0) return { edge: "top", offset: top };
  const clear = keepClear(region);
  const atTop = { top, bottom: top + height, left, right };
  if (!clear.some((box) => overlaps(atTop, box))) return { edge: "top", offset: top };
  const bottom = window.innerHeight - GAP * 2;
  const atBottom = { top: bottom - height, bottom, left, right };
  if (!clear.some((box) => overlaps(atBottom, box))) return { edge: "bottom", offset: GAP * 2 };
  return { edge: "top", offset: top };
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
