import { ChevronDown } from "lucide-react";
import { useEffect, useId, useRef } from "react";
import type { LabelTranslations } from "../../access/label-translations";
import { roleLabel } from "../../access/role-labels";
import { cn } from "../../components/ui/cn";
import { controlVariants, labelClass } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";

type Role = { name: string; label: string; translations: LabelTranslations };

/**
 * People holding any of the ticked roles: a disclosure of checkboxes inside the filter form, so
 * each tick applies at once and, without scripts, the form's Apply sends them all (`?role=a&role=b`).
 */
export type RoleFilterProps = { roles: Role[]; chosen: string };

export function RoleFilter({ roles, chosen }: RoleFilterProps) {
  const { t } = useTranslation();
  const id = useId();
  const group = useRef<HTMLFieldSetElement>(null);
  const disclosure = useRef<HTMLDetailsElement>(null);
  const picked = chosen ? chosen.split(",") : [];
  const said = picked.length
    ? picked.map((name) => {
        const role = roles.find((r) => r.name === name);
        return role ? roleLabel(t, role) : name;
      })
    : [t("users:filters.anyRole")];

  // A removed chip or Back changes the address, not the boxes: they follow it.
  useEffect(() => {
    const names = new Set(chosen ? chosen.split(",") : []);
    for (const box of group.current?.querySelectorAll<HTMLInputElement>("input[type=checkbox]") ?? [])
      box.checked = names.has(box.value);
  }, [chosen]);

  // As a menu would: Escape closes it onto its button, a click or focus elsewhere closes it.
  useEffect(() => {
    const away = (event: Event) => {
      const details = disclosure.current;
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener("pointerdown", away);
    document.addEventListener("focusin", away);
    return () => {
      document.removeEventListener("pointerdown", away);
      document.removeEventListener("focusin", away);
    };
  }, []);
  const onKeyDown = (event: React.KeyboardEvent<HTMLDetailsElement>) => {
    if (event.key !== "Escape" || !event.currentTarget.open) return;
    event.preventDefault();
    event.currentTarget.open = false;
    event.currentTarget.querySelector("summary")?.focus();
  };

  return (
    <div>
      <span id={`${id}-label`} className={labelClass}>
        {t("users:filters.role")}
      </span>
      <details ref={disclosure} className="relative" data-testid="role-filter" onKeyDown={onKeyDown}>
        <summary
          aria-labelledby={`${id}-label ${id}-value`}
          className={cn(
            controlVariants(),
            "flex w-48 cursor-pointer list-none items-center justify-between gap-2 [&::-webkit-details-marker]:hidden",
          )}
        >
          <span id={`${id}-value`} className="truncate">
            {said.join(", ")}
          </span>
          <ChevronDown aria-hidden className="size-4 shrink-0 opacity-60" />
        </summary>
        <fieldset
          ref={group}
          className="absolute z-30 mt-1 flex max-h-72 w-56 flex-col gap-1 overflow-auto rounded-md border bg-popover p-2 text-popover-foreground shadow-md"
        >
          <legend className="sr-only">{t("users:filters.rolesAny")}</legend>
          {roles.map((r) => (
            <label key={r.name} className="flex items-center gap-2 rounded px-1 py-1 text-sm hover:bg-accent">
              <input
                type="checkbox"
                name="role"
                value={r.name}
                defaultChecked={picked.includes(r.name)}
                className="size-4 accent-primary"
              />
              {roleLabel(t, r)}
            </label>
          ))}
        </fieldset>
      </details>
    </div>
  );
}
