import * as Radix from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { useTranslation } from "react-i18next";

/*
 * A panel that slides in from a side of the screen (the phone navigation drawer, side forms), on
 * Radix Dialog: while open it traps focus and hides the page from screen readers; Escape, the
 * close button or a click on the backdrop close it and focus returns to the trigger. Closed, its
 * content is not rendered at all, so nothing in it can be tabbed to.
 */
export const Sheet = Radix.Root;
export const SheetTrigger = Radix.Trigger;
export const SheetClose = Radix.Close;

const SIDES = {
  left: "inset-y-0 left-0 h-full w-72 max-w-[85vw] border-r",
  right: "inset-y-0 right-0 h-full w-96 max-w-[90vw] border-l",
} as const;

export function SheetContent({
  title,
  description,
  side = "left",
  hideTitle = false,
  className = "",
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
      <Radix.Overlay className="fixed inset-0 z-40 bg-black/40" />
      <Radix.Content
        // Without a description, say so: Radix otherwise points aria-describedby at nothing.
        {...(description ? {} : { "aria-describedby": undefined })}
        className={`fixed z-50 flex flex-col overflow-y-auto border-slate-200 bg-white text-slate-900 shadow-xl dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100 ${SIDES[side]} ${className}`}
      >
        <div className="flex h-14 shrink-0 items-center justify-between border-b border-slate-200 px-4 dark:border-slate-800">
          <Radix.Title className={hideTitle ? "sr-only" : "font-semibold"}>{title}</Radix.Title>
          <Radix.Close
            className="rounded p-1 hover:bg-slate-200 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 dark:hover:bg-slate-800"
            aria-label={t("ui:close")}
          >
            <X aria-hidden className="size-5" />
          </Radix.Close>
        </div>
        {description ? (
          <Radix.Description className="px-4 pt-3 text-sm text-slate-600 dark:text-slate-300">
            {description}
          </Radix.Description>
        ) : null}
        {children}
      </Radix.Content>
    </Radix.Portal>
  );
}
