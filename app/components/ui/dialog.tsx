import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { useTranslation } from "../../i18n/use-translation";
import { ReserveErrorSpace } from "../forms/error-space";
import { buttonVariants } from "./button";
import { cn } from "./cn";

// Radix owns focus trap and return, Escape and aria-modal; this file only gives the dashboard's look.

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

export const overlayClass = "fixed inset-0 z-40 bg-overlay backdrop-blur-[1px]";
// Anchored by its top, so a growing panel grows downwards and nothing moves under the pointer.
export const panelClass =
  "fixed left-1/2 top-[8dvh] z-50 max-h-[84dvh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 overflow-y-auto rounded-lg border bg-popover p-6 text-popover-foreground shadow-lg";
export const titleClass = "text-lg font-semibold";
export const descriptionClass = "mt-1 text-sm text-muted-foreground";

type DialogContentProps = Omit<React.ComponentProps<typeof DialogPrimitive.Content>, "title"> & {
  title: React.ReactNode;
  /** Omit only when there is none. */
  description?: React.ReactNode;
};

/**
 * Escape in a search combobox with text or a list open is the combobox's (it closes the list or
 * clears the text, search-combobox.tsx); Radix hears it first, on the document, and would close.
 */
function escapeBelongsToField(event: KeyboardEvent) {
  const field = event.target;
  return (
    field instanceof HTMLInputElement &&
    field.dataset.escapeClears !== undefined &&
    (field.value !== "" || field.getAttribute("aria-expanded") === "true")
  );
}

export function DialogContent({
  title,
  description,
  children,
  className,
  onEscapeKeyDown,
  ...rest
}: DialogContentProps) {
  const { t } = useTranslation();
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className={overlayClass} />
      <DialogPrimitive.Content
        onEscapeKeyDown={(event) => {
          if (escapeBelongsToField(event)) event.preventDefault();
          onEscapeKeyDown?.(event);
        }}
        className={cn(panelClass, className)}
        {...(description ? {} : { "aria-describedby": undefined })}
        {...rest}
      >
        <DialogPrimitive.Title className={`${titleClass} pr-8`}>{title}</DialogPrimitive.Title>
        {description ? (
          <DialogPrimitive.Description className={descriptionClass}>
            {description}
          </DialogPrimitive.Description>
        ) : null}
        <div className="mt-4">
          {/* A field's error line keeps its space here: nothing moves when one turns invalid. */}
          <ReserveErrorSpace.Provider value={true}>{children}</ReserveErrorSpace.Provider>
        </div>
        <DialogPrimitive.Close
          aria-label={t("ui:close")}
          className={cn(
            buttonVariants({ variant: "ghost", size: "icon" }),
            "absolute right-3 top-3 p-1 text-muted-foreground",
          )}
        >
          <X aria-hidden className="size-4" />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogFooter({ children }: { children: React.ReactNode }) {
  return <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{children}</div>;
}
