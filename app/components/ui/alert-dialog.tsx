import * as AlertDialogPrimitive from "@radix-ui/react-alert-dialog";
import { useId, useRef, useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { ReserveErrorSpace } from "../forms/error-space";
import { Button, type ButtonVariant } from "./button";
import { cn } from "./cn";
import { descriptionClass, overlayClass, panelClass, titleClass } from "./dialog";
import { controlVariants, labelClass } from "./field";

type ConfirmAction =
  /**
   * The confirm button submits the page's own form (a React Router <Form> or fetcher.Form with
   * this id) as its submitter, so `name=value` travels with the fields like any other button.
   */
  | { formId: string; name?: string; value?: string; onConfirm?: never }
  /** Or the page does the work itself, e.g. `fetcher.submit(...)`. */
  | { onConfirm: () => void; formId?: never; name?: never; value?: never };

export type ConfirmDialogProps = ConfirmAction & {
  /** The element that opens the dialog; it gets focus back when the dialog closes. */
  trigger: React.ReactNode;
  /** What will happen, as a question: "Disable Ada Lovelace's account?" */
  title: React.ReactNode;
  /** To whom and what follows: "Ada will be signed out of 2 sessions and cannot sign in." */
  description: React.ReactNode;
  /** The confirm button's words, naming the act ("Disable account"), never "OK". */
  actionLabel: string;
  cancelLabel?: string;
  /** Only "destructive" acts need asking; "default" for the odd reversible one. */
  variant?: Extract<ButtonVariant, "destructive" | "default">;
  /** Type-to-confirm: the button stays disabled until exactly this text is typed. */
  confirmText?: string;
  /** Words before the text to type; the text itself is shown after them. */
  confirmLabel?: string;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  children?: React.ReactNode;
};

/**
 * The one confirmation for acts that hurt. Radix AlertDialog traps focus, starts on Cancel (the
 * safe choice), closes on Escape without acting and returns focus to the trigger.
 */
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
      // Submitted here, before closing: once the dialog unmounts the button would no longer be
      // connected, and a disconnected submitter sends nothing. requestSubmit keeps the button as
      // the submitter, so React Router's <Form> (and conform) see its name and value.
      event.preventDefault();
      const form = document.getElementById(props.formId);
      // A field in the dialog still to be filled (a role to choose) keeps it open, pointing there.
      // Only the dialog's own fields: the page's form is checked by its schema on submit, and its
      // constraint attributes need not match it (conform marks a defaulted field required).
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
      <AlertDialogPrimitive.Trigger asChild>{trigger}</AlertDialogPrimitive.Trigger>
      <AlertDialogPrimitive.Portal>
        <AlertDialogPrimitive.Overlay className={overlayClass} />
        <AlertDialogPrimitive.Content ref={panel} className={panelClass}>
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
                // Enter in this box must not submit a form elsewhere on the page.
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
