import * as Radix from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { useTranslation } from "../../i18n/use-translation";
import { buttonVariants } from "./button";
import { cn } from "./cn";

/*
 * A panel that slides in from a side of the screen (the phone navigation drawer, side forms), on
 * Radix Dialog: while open it traps focus and hides the page from screen readers; Escape, the
 * close button or a click on the backdrop close it and focus returns to the trigger. Closed, its
 * content is not rendered at all, so nothing in it can be tabbed to.
 */
export const Sheet = Radix.Root;
export const SheetTrigger = Radix.Trigger;

const SIDES = {
  left: "inset-y-0 left-0 h-full w-72 max-w-[85vw] border-r",
  right: "inset-y-0 right-0 h-full w-96 max-w-[90vw] border-l",
} as const;

export function SheetContent({
  title,
  description,
  side = "left",
  hideTitle = false,
  className,
  children,
}: {
  /** Names the dialog; shown as the panel's heading unless hideTitle. */
  title: string;
  description?: string;
  side?: keyof typeof SIDES;
  hideTitle?: boolean;
  className?: string;
  children: React.ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Radix.Portal>
      <Radix.Overlay className="fixed inset-0 z-40 bg-overlay" />
      <Radix.Content
        // Without a description, say so: Radix otherwise points aria-describedby at nothing.
        {...(description ? {} : { "aria-describedby": undefined })}
        className={cn(
          "fixed z-50 flex flex-col overflow-y-auto bg-card text-card-foreground shadow-xl",
          SIDES[side],
          className,
        )}
      >
        <div className="flex h-14 shrink-0 items-center justify-between border-b px-4">
          <Radix.Title className={hideTitle ? "sr-only" : "font-semibold"}>{title}</Radix.Title>
          <Radix.Close
            className={cn(buttonVariants({ variant: "ghost", size: "icon" }), "p-1")}
            aria-label={t("ui:close")}
          >
            <X aria-hidden className="size-5" />
          </Radix.Close>
        </div>
        {description ? (
          <Radix.Description className="px-4 pt-3 text-sm text-muted-foreground">
            {description}
          </Radix.Description>
        ) : null}
        {children}
      </Radix.Content>
    </Radix.Portal>
  );
}
