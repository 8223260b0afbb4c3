import { useId, useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { cn } from "./cn";
import { controlVariants, hintClass, labelClass } from "./field";

export type ComboboxOption = { id: string; label: string; description?: string };

/**
 * A text box that searches as it is typed and offers what it found in a listbox (the ARIA 1.2
 * combobox pattern): focus stays in the box while the arrow keys move the highlighted option
 * (aria-activedescendant), Enter picks it, Escape closes the list (then clears the text). How many
 * options were found is announced through a status line, since a listbox appearing is not.
 * The caller does the searching (server side) and passes what it found.
 */
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
  /** True while the answer for the current text is on its way. */
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
      // Enter never submits the surrounding form from here: it picks, or does nothing.
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
