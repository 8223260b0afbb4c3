import { cva } from "class-variance-authority";
import { useId } from "react";
import { cn } from "./cn";

// The form control looks, shared by these plain fields, the conform-wired ones
// (app/components/forms/fields.tsx) and the odd hand-built form: one label, input, hint and error style.

export const labelClass = "block text-sm font-medium text-foreground";
export const hintClass = "mt-1 text-sm text-muted-foreground";
export const errorTextClass = "mt-1 text-sm text-destructive";

/** A text box, select or text area; `aria-invalid` turns its border to the destructive token. */
export const controlVariants = cva(
  "block w-full rounded-md border border-input bg-card text-card-foreground shadow-xs placeholder:text-muted-foreground focus:border-ring disabled:opacity-60 aria-invalid:border-destructive",
  {
    variants: {
      size: {
        default: "mt-1 px-3 py-2 text-sm",
        sm: "px-2 py-1 text-xs",
      },
    },
    defaultVariants: { size: "default" },
  },
);

export function Input({
  className,
  ...rest
}: React.InputHTMLAttributes<HTMLInputElement> & { ref?: React.Ref<HTMLInputElement> }) {
  return <input className={cn(controlVariants(), className)} {...rest} />;
}

export function Textarea({
  className,
  ...rest
}: React.TextareaHTMLAttributes<HTMLTextAreaElement> & { ref?: React.Ref<HTMLTextAreaElement> }) {
  return <textarea className={cn(controlVariants(), className)} {...rest} />;
}

type FieldProps = React.InputHTMLAttributes<HTMLInputElement> & { label: string; error?: string | null };

/** A labelled input whose error is announced and tied to it with aria-describedby. */
export function Field({ label, error, id, className, ...input }: FieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const errorId = `${inputId}-error`;
  return (
    <div className={className}>
      <label htmlFor={inputId} className={labelClass}>
        {label}
      </label>
      <Input
        id={inputId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...input}
      />
      {error ? (
        <p id={errorId} className={errorTextClass}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
