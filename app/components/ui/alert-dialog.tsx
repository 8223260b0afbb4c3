import * as AlertDialogPrimitive from "@radix-ui/react-alert-dialog";
import { useId, useRef, useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { ReserveErrorSpace } from "../forms/error-space";
import { Button, type ButtonVariant } from "./button";
import { cn } from "./cn";
import { descriptionClass, overlayClass, panelClass, titleClass } from "./dialog";
import { controlVariants, labelClass } from "./field";

type ConfirmAction =
  /** The confirm button submits the page's form with this id as its submitter, so `name=value` travels with the fields. */
  | { formId: string; name?: string; value?: string; onConfirm?: never }
  | { onConfirm: () => void; formId?: never; name?: never; value?: never };

export type ConfirmDialogProps = ConfirmAction & {
  /** It gets focus back when the dialog closes. */
  trigger?: React.ReactNode;
  /** Opened from elsewhere (a menu), without a trigger: what gets the focus back when it closes. */
  returnFocusTo?: React.RefObject<HTMLElement | null>;
  /** A question: "Disable Ada Lovelace's account?" */
  title: React.ReactNode;
  description: React.ReactNode;
  /** Naming the act ("Disable account"), never "OK". */
  actionLabel: string;
  cancelLabel?: string;
  variant?: Extract<ButtonVariant, "destructive" | "default">;
  confirmText?: string;
  confirmLabel?: string;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  children?: React.ReactNode;
};

/** For acts that hurt: starts on Cancel, the safe choice. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const {
    trigger,
    title,
    description,
    actionLabel,
    cancelLabel,
    variant = "destructive",
    confirmText,
    confirmLabel,
    open,
    onOpenChange,
    children,
    returnFocusTo,
  } = props;
  const { t } = useTranslation();
  const inputId = useId();
  const [typed, setTyped] = useState("");
  const [ownOpen, setOwnOpen] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  const matches = confirmText === undefined || typed === confirmText;

  function setOpen(next: boolean) {
    if (!next) setTyped("");
    if (open === undefined) setOwnOpen(next);
    onOpenChange?.(next);
  }

  function confirm(event: React.MouseEvent<HTMLButtonElement>) {
    if (!matches) return;
    if (props.formId !== undefined) {
      // Submitted before closing: an unmounted submitter sends nothing, and requestSubmit keeps its name and value.
      event.preventDefault();
      const form = document.getElementById(props.formId);
      // A dialog field still to be filled keeps it open; only the dialog's own fields, as the page's form has its schema.
      const own =
        panel.current?.querySelectorAll<HTMLInputElement | HTMLSelectElement>("input, select") ?? [];
      for (const field of own) if (field.form === form && !field.reportValidity()) return;
      if (form instanceof HTMLFormElement) form.requestSubmit(event.currentTarget);
    } else {
      props.onConfirm();
    }
    setOpen(false);
  }

  return (
    <AlertDialogPrimitive.Root open={open ?? ownOpen} onOpenChange={setOpen}>
      {trigger ? <AlertDialogPrimitive.Trigger asChild>{trigger}</AlertDialogPrimitive.Trigger> : null}
      <AlertDialogPrimitive.Portal>
        <AlertDialogPrimitive.Overlay className={overlayClass} />
        <AlertDialogPrimitive.Content
          ref={panel}
          className={panelClass}
          onCloseAutoFocus={(event) => {
            const back = returnFocusTo?.current;
            if (!back?.isConnected) return;
            event.preventDefault();
            back.focus();
          }}
        >
          <AlertDialogPrimitive.Title className={titleClass}>{title}</AlertDialogPrimitive.Title>
          <AlertDialogPrimitive.Description className={descriptionClass}>
            {description}
          </AlertDialogPrimitive.Description>
          <ReserveErrorSpace.Provider value={true}>{children}</ReserveErrorSpace.Provider>
          {confirmText !== undefined ? (
            <div className="mt-4">
              <label htmlFor={inputId} className={labelClass}>
                {confirmLabel ?? t("ui:confirmType")} <strong className="font-mono">{confirmText}</strong>
              </label>
              <input
                id={inputId}
                value={typed}
                onChange={(event) => setTyped(event.target.value)}
                autoComplete="off"
                spellCheck={false}
                onKeyDown={(event) => {
                  if (event.key === "Enter") event.preventDefault();
                }}
                className={cn(controlVariants(), "font-mono")}
              />
            </div>
          ) : null}
          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogPrimitive.Cancel asChild>
              <Button type="button" variant="secondary">
                {cancelLabel ?? t("ui:cancel")}
              </Button>
            </AlertDialogPrimitive.Cancel>
            {/* Not Radix's Action: it would close (and unmount the submitter) before the submit. */}
            <Button
              variant={variant}
              disabled={!matches}
              onClick={confirm}
              {...(props.formId !== undefined
                ? { type: "submit", form: props.formId, name: props.name ?? "intent", value: props.value }
                : { type: "button" })}
            >
              {actionLabel}
            </Button>
          </div>
        </AlertDialogPrimitive.Content>
      </AlertDialogPrimitive.Portal>
    </AlertDialogPrimitive.Root>
  );
}
