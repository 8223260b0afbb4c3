import * as TabsPrimitive from "@radix-ui/react-tabs";
import { useEffect, useRef, useState } from "react";
import { focusRing } from "./button";
import { cn } from "./cn";

// Radix gives the tablist its roles, arrow-key movement and aria-controls; this adds the look.

export const Tabs = TabsPrimitive.Root;

type Fade = "none" | "start" | "end" | "both";
/** How far the fade reaches in, and how far a tab is kept from the edge so it is never under it. */
const FADE_PX = 40;

/**
 * A tab list wider than the screen scrolls sideways; a fade on the side with more tabs says so.
 * The active tab and a tab reached with the arrow keys are brought out from under the fade.
 */
function useOverflowFade() {
  const ref = useRef<HTMLDivElement>(null);
  const [fade, setFade] = useState<Fade>("none");
  useEffect(() => {
    const list = ref.current;
    if (!list) return;
    const measure = () => {
      const more = list.scrollWidth - list.clientWidth;
      const start = list.scrollLeft > 1;
      const end = more - list.scrollLeft > 1;
      setFade(start && end ? "both" : start ? "start" : end ? "end" : "none");
    };
    const reveal = (tab: Element | null) => {
      if (!(tab instanceof HTMLElement)) return;
      const box = list.getBoundingClientRect();
      const own = tab.getBoundingClientRect();
      // Sideways only: the page itself never scrolls to the tabs.
      if (own.left < box.left + FADE_PX) list.scrollLeft -= box.left + FADE_PX - own.left;
      else if (own.right > box.right - FADE_PX) list.scrollLeft += own.right - (box.right - FADE_PX);
    };
    const active = () => reveal(list.querySelector('[role="tab"][data-state="active"]'));
    const focused = (event: FocusEvent) => reveal(event.target as Element);
    active();
    measure();
    const resized = new ResizeObserver(() => {
      active();
      measure();
    });
    resized.observe(list);
    const switched = new MutationObserver(active);
    switched.observe(list, { subtree: true, attributeFilter: ["data-state"] });
    list.addEventListener("scroll", measure, { passive: true });
    list.addEventListener("focusin", focused);
    return () => {
      resized.disconnect();
      switched.disconnect();
      list.removeEventListener("scroll", measure);
      list.removeEventListener("focusin", focused);
    };
  }, []);
  return { ref, fade };
}

export function TabsList({ className, ...rest }: React.ComponentProps<typeof TabsPrimitive.List>) {
  const { ref, fade } = useOverflowFade();
  return (
    <TabsPrimitive.List
      ref={ref}
      data-fade={fade}
      className={cn(
        "flex gap-1 overflow-x-auto overscroll-x-contain border-b [scrollbar-width:thin]",
        "data-[fade=end]:[mask-image:linear-gradient(to_right,#000_calc(100%-2.5rem),transparent)]",
        "data-[fade=start]:[mask-image:linear-gradient(to_left,#000_calc(100%-2.5rem),transparent)]",
        "data-[fade=both]:[mask-image:linear-gradient(to_right,transparent,#000_2.5rem,#000_calc(100%-2.5rem),transparent)]",
        className,
      )}
      {...rest}
    />
  );
}

export function TabsTrigger({ className, ...rest }: React.ComponentProps<typeof TabsPrimitive.Trigger>) {
  return (
    <TabsPrimitive.Trigger
      className={cn(
        "-mb-px whitespace-nowrap border-b-2 border-transparent px-3 py-2 text-sm font-medium text-muted-foreground hover:text-foreground data-[state=active]:border-primary data-[state=active]:text-primary",
        focusRing,
        // Inside the list's scroll box an outer ring would be clipped.
        "focus-visible:-outline-offset-2",
        className,
      )}
      {...rest}
    />
  );
}

export function TabsContent({ className, ...rest }: React.ComponentProps<typeof TabsPrimitive.Content>) {
  return <TabsPrimitive.Content className={cn("pt-4", focusRing, className)} {...rest} />;
}
