import { X } from "lucide-react";
import { useEffect, useRef } from "react";
import { Form, Link, useLocation, useSubmit } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { useHydrated } from "../use-hydrated";
import { Button, focusRing } from "./button";
import { cn } from "./cn";
import { linkVariants } from "./link";

// One behaviour for every filtered list; the state lives in the URL.

const TYPING_DELAY_MS = 400;
const TYPED_INPUTS = new Set(["text", "search"]);
const CURSORS = ["after", "before"];

const isTyped = (target: EventTarget) => target instanceof HTMLInputElement && TYPED_INPUTS.has(target.type);

function filledParams(form: HTMLFormElement): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (typeof value === "string" && value !== "") params.append(name, value);
  }
  return params;
}

/** Fields follow the address (a chip, back/forward) except the one being typed in; without scripts an Apply button submits. */
export function FilterForm({
  label,
  applied,
  applyLabel,
  className,
  children,
}: {
  label: string;
  applied: Record<string, string>;
  applyLabel: string;
  className?: string;
  children: React.ReactNode;
}) {
  const submit = useSubmit();
  const hydrated = useHydrated();
  const formRef = useRef<HTMLFormElement>(null);
  const typing = useRef<ReturnType<typeof setTimeout>>(undefined);
  const appliedKey = JSON.stringify(applied);

  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    for (const [name, value] of Object.entries(JSON.parse(appliedKey) as Record<string, string>)) {
      const field = form.elements.namedItem(name);
      if (
        (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) &&
        field !== document.activeElement
      )
        field.value = value;
    }
  }, [appliedKey]);
  useEffect(() => () => clearTimeout(typing.current), []);

  const apply = (form: HTMLFormElement) => {
    clearTimeout(typing.current);
    submit(filledParams(form), { method: "get", replace: true, preventScrollReset: true });
  };

  return (
    <Form
      method="get"
      ref={formRef}
      className={cn("flex flex-wrap items-end gap-3", className)}
      aria-label={label}
      onChange={(event) => {
        const form = event.currentTarget;
        clearTimeout(typing.current);
        if (isTyped(event.target)) typing.current = setTimeout(() => apply(form), TYPING_DELAY_MS);
        else apply(form);
      }}
      onKeyDown={(event) => {
        if (event.key === "Enter" && isTyped(event.target)) {
          event.preventDefault();
          apply(event.currentTarget);
        }
      }}
      onSubmit={() => clearTimeout(typing.current)}
    >
      {children}
      {hydrated ? null : <Button variant="secondary">{applyLabel}</Button>}
    </Form>
  );
}

export type FilterChip = { name: string; label: string; value: string };

function without(search: string, names: string[]): string {
  const params = new URLSearchParams(search);
  for (const name of [...names, ...CURSORS]) params.delete(name);
  const rest = params.toString();
  return rest ? `?${rest}` : "?";
}

export function FilterChips({ chips }: { chips: FilterChip[] }) {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  if (chips.length === 0) return null;
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="filter-chips">
      <ul className="flex flex-wrap gap-2" aria-label={t("ui:filters.applied")}>
        {chips.map((chip) => (
          <li key={chip.name}>
            <Link
              to={pathname + without(search, [chip.name])}
              replace
              preventScrollReset
              className={cn(
                "inline-flex items-center gap-1 rounded-full border border-border bg-muted px-3 py-1 text-foreground hover:bg-accent",
                focusRing,
              )}
              aria-label={t("ui:filters.remove", { filter: `${chip.label}: ${chip.value}` })}
            >
              <span className="text-muted-foreground">{chip.label}:</span>{" "}
              <span className="max-w-48 truncate font-medium">{chip.value}</span>
              <X aria-hidden className="size-3.5" />
            </Link>
          </li>
        ))}
      </ul>
      <Link
        to={
          pathname +
          without(
            search,
            chips.map((c) => c.name),
          )
        }
        replace
        preventScrollReset
        className={linkVariants()}
      >
        {t("ui:filters.clearAll")}
      </Link>
    </div>
  );
}
