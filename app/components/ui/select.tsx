import { useId } from "react";
import { cn } from "./cn";
import { controlVariants, errorTextClass, labelClass } from "./field";

type SelectProps = React.SelectHTMLAttributes<HTMLSelectElement> & { label: string; error?: string | null };

export function Select({ label, error, id, className, children, ...rest }: SelectProps) {
  const generated = useId();
  const selectId = id ?? generated;
  return (
    <div className={className}>
      <label htmlFor={selectId} className={labelClass}>
        {label}
      </label>
      <select
        id={selectId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${selectId}-error` : undefined}
        className={cn(controlVariants())}
        {...rest}
      >
        {children}
      </select>
      {error ? (
        <p id={`${selectId}-error`} className={errorTextClass}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
