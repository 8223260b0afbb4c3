import { useId, useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { cn } from "./cn";
import { controlVariants, hintClass, labelClass } from "./field";

export type ComboboxOption = { id: string; label: string; description?: string };

/** The ARIA 1.2 combobox pattern; a status line announces how many were found, since a listbox appearing is not. */
export function SearchCombobox({
  label,
  query,
  onQueryChange,
  options,
  searching = false,
  onSelect,
  placeholder,
  disabled,
}: {
  label: string;
  query: string;
  onQueryChange: (query: string) => void;
  options: ComboboxOption[];
  searching?: boolean;
  onSelect: (option: ComboboxOption) => void;
  placeholder?: string;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const id = useId();
  const listId = `${id}-list`;
  const [active, setActive] = useState(-1);
  const [dismissed, setDismissed] = useState(false);
  const open = !dismissed && query.trim() !== "" && options.length > 0;
  const optionId = (i: number) => `${id}-option-${i}`;
  const current = open && active >= 0 && active < options.length ? active : -1;

  const status =
    query.trim() === ""
      ? ""
      : searching
        ? t("ui:combobox.searching")
        : options.length === 0
          ? t("ui:combobox.noMatch", { query: query.trim() })
          : t("ui:combobox.found", { count: options.length });

  function pick(option: ComboboxOption) {
    setActive(-1);
    setDismissed(true);
    onSelect(option);
  }

  function onKeyDown(event: React.KeyboardEvent<HTMLInputElement>) {
    const count = options.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (count === 0) return;
      event.preventDefault();
      setDismissed(false);
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((i) => (i < 0 ? (step === 1 ? 0 : count - 1) : (i + step + count) % count));
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (current >= 0) pick(options[current]!);
    } else if (event.key === "Escape") {
      if (open) {
        event.preventDefault();
        event.stopPropagation();
        setDismissed(true);
        setActive(-1);
      } else if (query) {
        event.preventDefault();
        event.stopPropagation();
        onQueryChange("");
      }
    }
  }

  return (
    <div className="relative">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <input
        id={id}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-activedescendant={current >= 0 ? optionId(current) : undefined}
        aria-describedby={`${id}-status`}
        autoComplete="off"
        spellCheck={false}
        // A dialog around it leaves Escape to it while it has something to close or clear.
        data-escape-clears=""
        value={query}
        placeholder={placeholder}
        disabled={disabled}
        onChange={(event) => {
          setDismissed(false);
          setActive(-1);
          onQueryChange(event.target.value);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setDismissed(true)}
        onFocus={() => setDismissed(false)}
        className={controlVariants()}
      />
      <p id={`${id}-status`} role="status" className="sr-only">
        {status}
      </p>
      {!open && query.trim() !== "" && !searching && options.length === 0 ? (
        <p className={hintClass} aria-hidden>
          No one matches “{query.trim()}”.
        </p>
      ) : null}
      {open ? (
        <ul
          id={listId}
          role="listbox"
          aria-label={label}
          className="absolute z-30 mt-1 max-h-72 w-full overflow-auto rounded-md border bg-popover py-1 text-popover-foreground shadow-lg"
        >
          {options.map((option, i) => (
            <li
              key={option.id}
              id={optionId(i)}
              role="option"
              aria-selected={i === current}
              // Keeps focus in the input, so the list does not close before the click lands.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => pick(option)}
              onMouseMove={() => setActive(i)}
              className={cn("cursor-pointer px-3 py-2 text-sm", i === current && "bg-primary/15")}
            >
              <span className="font-medium">{option.label}</span>
              {option.description ? (
                <span className="block text-xs text-muted-foreground">{option.description}</span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
