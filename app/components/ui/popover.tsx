import * as Radix from "@radix-ui/react-popover";

/*
 * A non-modal panel anchored to a button (the bell, the task centre): Escape closes it and focus
 * returns to the trigger; focus or a click outside closes it. The content is not portalled, so it
 * follows its trigger in the tab order: Tab from its last element moves on to the next header
 * control (and closes the panel), Shift+Tab from its first returns to the trigger.
 */
export const Popover = Radix.Root;
export const PopoverTrigger = Radix.Trigger;

export function PopoverContent({
  children,
  className = "",
  label,
  onOpenAutoFocus,
}: {
  children: React.ReactNode;
  className?: string;
  /** The dialog's accessible name, e.g. "Notifications". */
  label: string;
  onOpenAutoFocus?: (event: Event) => void;
}) {
  return (
    <Radix.Content
      align="end"
      sideOffset={6}
      collisionPadding={8}
      aria-label={label}
      onOpenAutoFocus={onOpenAutoFocus}
      className={`z-40 max-w-[calc(100vw-1rem)] rounded-md border border-slate-200 bg-white p-2 text-slate-900 shadow-lg dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 ${className}`}
    >
      {children}
    </Radix.Content>
  );
}
