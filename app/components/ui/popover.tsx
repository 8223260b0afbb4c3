import * as Radix from "@radix-ui/react-popover";
import { createContext, useContext, useRef } from "react";
import { cn } from "./cn";
import { focusTabbableBeside, tabbablesIn } from "./tabbable";

/*
 * A non-modal panel anchored to a button (the bell, the task centre): Escape closes it and focus
 * returns to the trigger; a click or focus outside closes it. Radix loops Tab inside the panel;
 * here Tab past its last element closes it and moves on to the control after the trigger, and
 * Shift+Tab before its first closes it on the trigger, as a disclosure would.
 */

type TabOut = {
  setOpen: (open: boolean) => void;
  tabbedOut: React.RefObject<1 | -1 | null>;
  trigger: React.RefObject<HTMLButtonElement | null>;
};
const TabOutContext = createContext<TabOut | null>(null);

export function Popover({
  open,
  onOpenChange,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  children: React.ReactNode;
}) {
  const tabbedOut = useRef<1 | -1 | null>(null);
  const trigger = useRef<HTMLButtonElement | null>(null);
  return (
    <TabOutContext.Provider value={{ setOpen: onOpenChange, tabbedOut, trigger }}>
      <Radix.Root open={open} onOpenChange={onOpenChange}>
        {children}
      </Radix.Root>
    </TabOutContext.Provider>
  );
}

/** A button; extra props (e.g. a Tooltip's) pass through. */
export function PopoverTrigger({
  ref,
  ...props
}: React.ComponentProps<typeof Radix.Trigger> & { ref?: React.Ref<HTMLButtonElement> }) {
  const ctx = useContext(TabOutContext);
  return (
    <Radix.Trigger
      {...props}
      ref={(node) => {
        if (ctx) ctx.trigger.current = node;
        if (typeof ref === "function") ref(node);
        else if (ref) ref.current = node;
      }}
    />
  );
}

export function PopoverContent({
  children,
  className,
  label,
}: {
  children: React.ReactNode;
  className?: string;
  /** The dialog's accessible name, e.g. "Notifications". */
  label: string;
}) {
  const ctx = useContext(TabOutContext);
  return (
    <Radix.Portal>
      <Radix.Content
        align="end"
        sideOffset={6}
        collisionPadding={8}
        aria-label={label}
        onKeyDown={(event) => {
          if (event.key !== "Tab" || !ctx) return;
          const inside = tabbablesIn(event.currentTarget);
          const active = document.activeElement;
          const atEnd = event.shiftKey
            ? inside.length === 0 || active === inside[0] || active === event.currentTarget
            : inside.length === 0 || active === inside.at(-1);
          if (!atEnd) return;
          event.preventDefault();
          ctx.tabbedOut.current = event.shiftKey ? -1 : 1;
          ctx.setOpen(false);
        }}
        onCloseAutoFocus={(event) => {
          const direction = ctx?.tabbedOut.current;
          if (!ctx || !direction) return;
          ctx.tabbedOut.current = null;
          event.preventDefault();
          const trigger = ctx.trigger.current;
          if (!trigger) return;
          if (direction === 1) focusTabbableBeside(trigger, 1);
          else trigger.focus();
        }}
        className={cn(
          "z-40 max-w-[calc(100vw-1rem)] rounded-md border bg-popover p-2 text-popover-foreground shadow-lg",
          className,
        )}
      >
        {children}
      </Radix.Content>
    </Radix.Portal>
  );
}
