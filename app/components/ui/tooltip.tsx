import * as Radix from "@radix-ui/react-tooltip";

/** Once near the root: tooltips share one delay, so moving along a toolbar shows them at once. */
export function TooltipProvider({ children }: { children: React.ReactNode }) {
  return <Radix.Provider delayDuration={400}>{children}</Radix.Provider>;
}

/**
 * A short visual hint for a control, shown on hover and on keyboard focus, hidden on Escape.
 * It describes (aria-describedby); it never names: give the control its own accessible name.
 */
export function Tooltip({
  content,
  children,
  side = "bottom",
}: {
  content: React.ReactNode;
  children: React.ReactElement;
  side?: "top" | "right" | "bottom" | "left";
}) {
  return (
    <Radix.Root>
      <Radix.Trigger asChild>{children}</Radix.Trigger>
      <Radix.Portal>
        <Radix.Content
          side={side}
          sideOffset={6}
          collisionPadding={8}
          className="z-50 rounded bg-foreground px-2 py-1 text-xs text-background shadow"
        >
          {content}
        </Radix.Content>
      </Radix.Portal>
    </Radix.Root>
  );
}
