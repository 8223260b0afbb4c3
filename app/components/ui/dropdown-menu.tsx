import * as Menu from "@radix-ui/react-dropdown-menu";
import { Check } from "lucide-react";
import { createContext, useContext, useRef, useState } from "react";
import { cn } from "./cn";
import { focusTabbableBeside } from "./tabbable";

/*
 * A menu of actions on Radix DropdownMenu: Enter/Space/ArrowDown open it on the first item, arrows
 * move, Escape closes it and focus returns to the trigger. Radix swallows Tab inside a menu; the
 * WAI-ARIA menu pattern closes the menu on Tab and moves on, so this wrapper does that: focus goes
 * to the element after (Shift+Tab: before) the trigger.
 */

type TabOut = {
  close: (direction: 1 | -1) => void;
  tabbedOut: React.RefObject<1 | -1 | null>;
  trigger: React.RefObject<HTMLElement | null>;
};
const TabOutContext = createContext<TabOut | null>(null);

export function DropdownMenu({
  children,
  open: controlledOpen,
  onOpenChange,
}: {
  children: React.ReactNode;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
}) {
  const [uncontrolled, setUncontrolled] = useState(false);
  const open = controlledOpen ?? uncontrolled;
  const setOpen = (next: boolean) => {
    setUncontrolled(next);
    onOpenChange?.(next);
  };
  const tabbedOut = useRef<1 | -1 | null>(null);
  const trigger = useRef<HTMLElement | null>(null);
  const value: TabOut = {
    close: (direction) => {
      tabbedOut.current = direction;
      setOpen(false);
    },
    tabbedOut,
    trigger,
  };
  return (
    <TabOutContext.Provider value={value}>
      <Menu.Root open={open} onOpenChange={setOpen} modal={false}>
        {children}
      </Menu.Root>
    </TabOutContext.Provider>
  );
}

/** Wraps one focusable element (usually a button); extra props (e.g. a Tooltip's) pass through. */
export function DropdownMenuTrigger({
  children,
  ref,
  ...rest
}: { children: React.ReactElement; ref?: React.Ref<HTMLButtonElement> } & Record<string, unknown>) {
  const ctx = useContext(TabOutContext);
  return (
    <Menu.Trigger
      asChild
      {...rest}
      ref={(node) => {
        if (ctx) ctx.trigger.current = node;
        if (typeof ref === "function") ref(node);
        else if (ref) ref.current = node;
      }}
    >
      {children}
    </Menu.Trigger>
  );
}

const PANEL = "z-50 min-w-48 rounded-md border bg-popover p-1 text-popover-foreground shadow-lg";

export function DropdownMenuContent({
  children,
  className,
  align = "end",
  label,
}: {
  children: React.ReactNode;
  className?: string;
  align?: "start" | "center" | "end";
  /** The menu's accessible name when the trigger's text is not enough. */
  label?: string;
}) {
  const ctx = useContext(TabOutContext);
  return (
    <Menu.Portal>
      <Menu.Content
        align={align}
        sideOffset={6}
        aria-label={label}
        className={cn(PANEL, className)}
        onKeyDown={(event) => {
          if (event.key !== "Tab" || !ctx) return;
          event.preventDefault();
          ctx.close(event.shiftKey ? -1 : 1);
        }}
        onCloseAutoFocus={(event) => {
          const direction = ctx?.tabbedOut.current;
          if (!ctx || !direction) return;
          ctx.tabbedOut.current = null;
          event.preventDefault();
          const from = ctx.trigger.current;
          if (from) focusTabbableBeside(from, direction);
        }}
      >
        {children}
      </Menu.Content>
    </Menu.Portal>
  );
}

const ITEM =
  "flex w-full cursor-default select-none items-center gap-2 rounded px-2 py-2 text-sm outline-none data-[disabled]:opacity-50 data-[highlighted]:bg-primary/15 data-[highlighted]:text-foreground";

export function DropdownMenuItem({
  children,
  onSelect,
  disabled,
  className,
}: {
  children: React.ReactNode;
  onSelect?: (event: Event) => void;
  disabled?: boolean;
  className?: string;
}) {
  return (
    <Menu.Item onSelect={onSelect} disabled={disabled} className={cn(ITEM, className)}>
      {children}
    </Menu.Item>
  );
}

export function DropdownMenuLabel({ children }: { children: React.ReactNode }) {
  return <Menu.Label className="px-2 py-1 text-sm">{children}</Menu.Label>;
}

export function DropdownMenuSeparator() {
  return <Menu.Separator className="my-1 h-px bg-border" />;
}

export function DropdownMenuRadioGroup<T extends string>({
  value,
  onValueChange,
  children,
  label,
}: {
  value: T;
  onValueChange: (value: T) => void;
  children: React.ReactNode;
  label?: string;
}) {
  return (
    <Menu.RadioGroup value={value} aria-label={label} onValueChange={(v) => onValueChange(v as T)}>
      {children}
    </Menu.RadioGroup>
  );
}

export function DropdownMenuRadioItem({ value, children }: { value: string; children: React.ReactNode }) {
  return (
    <Menu.RadioItem value={value} className={cn(ITEM, "relative pl-8")}>
      <Menu.ItemIndicator className="absolute left-2 inline-flex">
        <Check aria-hidden className="size-4" />
      </Menu.ItemIndicator>
      {children}
    </Menu.RadioItem>
  );
}
