import {
  type FieldMetadata,
  type FormMetadata,
  getCollectionProps,
  getInputProps,
  getSelectProps,
} from "@conform-to/react";
import { useContext } from "react";
import { alertVariants } from "../ui/alert";
import { controlVariants, errorTextClass, hintClass, labelClass } from "../ui/field";
import { ReserveErrorSpace } from "./error-space";

// A field's error is not role=alert: the summary or the focus move announces a refusal.

// biome-ignore lint/suspicious/noExplicitAny: a field of any form, whatever its schema
type AnyField = FieldMetadata<any, any, string[]>;

const controlClass = controlVariants();

function FieldHint({ id, children }: { id: string; children?: React.ReactNode }) {
  return children ? (
    <p id={id} className={hintClass}>
      {children}
    </p>
  ) : null;
}

const reservedClass = "min-h-5";

function FieldError({ id, errors }: { id: string; errors?: string[] }) {
  const reserve = useContext(ReserveErrorSpace);
  if (errors?.[0])
    return (
      <p id={id} className={reserve ? `${errorTextClass} ${reservedClass}` : errorTextClass}>
        {errors[0]}
      </p>
    );
  return reserve ? <p aria-hidden className={`${errorTextClass} ${reservedClass}`} /> : null;
}

type InputType = "text" | "email" | "search" | "tel" | "url" | "number" | "date" | "hidden";

type TextFieldProps = Omit<
  React.InputHTMLAttributes<HTMLInputElement>,
  "name" | "id" | "type" | "defaultValue" | "form"
> & {
  meta: AnyField;
  label: string;
  type?: InputType;
  description?: React.ReactNode;
};

export function TextField({ meta, label, type = "text", description, className, ...rest }: TextFieldProps) {
  const { key, ...input } = getInputProps(meta, {
    type,
    ariaDescribedBy: description ? meta.descriptionId : undefined,
  });
  return (
    <div className={className}>
      <label htmlFor={meta.id} className={labelClass}>
        {label}
      </label>
      <input key={key} {...input} {...rest} className={controlClass} />
      <FieldHint id={meta.descriptionId}>{description}</FieldHint>
      <FieldError id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

/** Never filled from a previous answer: the value is not sent back. */
export function PasswordField({
  meta,
  label,
  description,
  className,
  ...rest
}: Omit<TextFieldProps, "type">) {
  const { key, ...input } = getInputProps(meta, {
    type: "password",
    value: false,
    ariaDescribedBy: description ? meta.descriptionId : undefined,
  });
  return (
    <div className={className}>
      <label htmlFor={meta.id} className={labelClass}>
        {label}
      </label>
      <input key={key} {...input} {...rest} className={controlClass} />
      <FieldHint id={meta.descriptionId}>{description}</FieldHint>
      <FieldError id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

export function SelectField({
  meta,
  label,
  description,
  className,
  children,
  ...rest
}: Omit<React.SelectHTMLAttributes<HTMLSelectElement>, "name" | "id" | "defaultValue" | "form"> & {
  meta: AnyField;
  label: string;
  description?: React.ReactNode;
}) {
  const { key, ...select } = getSelectProps(meta, {
    ariaDescribedBy: description ? meta.descriptionId : undefined,
  });
  return (
    <div className={className}>
      <label htmlFor={meta.id} className={labelClass}>
        {label}
      </label>
      <select key={key} {...select} {...rest} className={controlClass}>
        {children}
      </select>
      <FieldHint id={meta.descriptionId}>{description}</FieldHint>
      <FieldError id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

/** An error about any one box ("roles[1]") shows for the group. */
export function CheckboxGroupField({
  meta,
  legend,
  options,
  description,
  className = "",
}: {
  meta: AnyField;
  legend: string;
  /** `hint`: a line under the box's label, read out with it (what a role gives, say). */
  options: { value: string; label: React.ReactNode; hint?: string }[];
  description?: React.ReactNode;
  className?: string;
}) {
  const hinted = options.some((o) => o.hint);
  const errors = Object.values(meta.allErrors).flat();
  const describedBy = [errors.length ? meta.errorId : null, description ? meta.descriptionId : null]
    .filter(Boolean)
    .join(" ");
  const boxes = getCollectionProps(meta, {
    type: "checkbox",
    options: options.map((o) => o.value),
    ariaAttributes: false,
  });
  return (
    <fieldset className={className} aria-describedby={describedBy || undefined}>
      <legend className={labelClass}>{legend}</legend>
      <div className={hinted ? "mt-1 flex flex-col gap-2" : "mt-1 flex flex-wrap gap-x-4 gap-y-1"}>
        {boxes.map(({ key, ...box }, index) => {
          const hint = options[index]!.hint;
          const hintId = hint ? `${meta.id}-hint-${index}` : undefined;
          return (
            <div key={key ?? box.value}>
              <label className="inline-flex items-center gap-2 text-sm">
                <input
                  {...box}
                  aria-invalid={errors.length ? true : undefined}
                  aria-describedby={hintId}
                  className="size-4 accent-primary"
                />
                {options[index]!.label}
              </label>
              {hint ? (
                <p id={hintId} className="ml-6 text-xs text-muted-foreground">
                  {hint}
                </p>
              ) : null}
            </div>
          );
        })}
      </div>
      <FieldHint id={meta.descriptionId}>{description}</FieldHint>
      <FieldError id={meta.errorId} errors={errors} />
    </fieldset>
  );
}

/** Focusable, so useAppForm can move focus here when no field is to blame. */
// biome-ignore lint/suspicious/noExplicitAny: a form of any schema
export function FormErrors({ form }: { form: FormMetadata<any, string[]> }) {
  const errors = form.errors ?? [];
  if (!errors.length) return null;
  return (
    <p id={form.errorId} role="alert" tabIndex={-1} className={alertVariants({ variant: "destructive" })}>
      {errors.join(" ")}
    </p>
  );
}
