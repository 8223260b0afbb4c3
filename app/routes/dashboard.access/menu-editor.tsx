import { ArrowDown, ArrowUp, Eye, EyeOff } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Form, useSubmit } from "react-router";
import { MENU_PATHS } from "../../access/menu";
import { saveMenuSchema } from "../../access/menu-schemas";
import { PERMISSIONS } from "../../access/permissions";
import { FormErrors, SelectField, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { MENU_ICONS, menuIcon } from "../../components/icons";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { cn } from "../../components/ui/cn";
import { useTranslation } from "../../i18n/use-translation";
import { LocalizedLabelFields } from "./localized-label-fields";
import type { MenuRow } from "./types";

const INTENT = "save-menu";

/** At once, not part of the form's Save. */
function HideToggle({ id, title, hidden }: { id: string; title: string; hidden: boolean }) {
  const { t } = useTranslation();
  const submit = useSubmit();
  const intent = hidden ? "show-menu-item" : "hide-menu-item";
  const pending = useIsPending({ intent });
  const Icon = hidden ? Eye : EyeOff;
  return (
    <Button
      type="button"
      variant="secondary"
      pending={pending}
      aria-label={t(hidden ? "access:menu.show" : "access:menu.hide", { title })}
      onClick={() => submit({ intent, id }, { method: "post" })}
    >
      <Icon aria-hidden className="size-4" />
      {t(hidden ? "access:menu.showShort" : "access:menu.hideShort")}
    </Button>
  );
}

/** Focus stays on the moved item. */
export function MenuEditor({ menu, onDirty }: { menu: MenuRow[]; onDirty: (dirty: boolean) => void }) {
  const [form, fields] = useAppForm({
    schema: saveMenuSchema,
    id: "menu-editor",
    intent: INTENT,
    defaultValue: {
      items: menu.map((m) => ({
        id: m.id,
        title: m.title,
        translations: m.translations,
        url: m.url,
        icon: m.icon,
        requiredPermission: m.required_permission,
      })),
    },
  });
  const { t } = useTranslation();
  const saving = useIsPending({ intent: INTENT });
  const items = fields.items.getFieldList();
  const listRef = useRef<HTMLOListElement>(null);
  const [moved, setMoved] = useState<{ id: string; direction: "up" | "down" } | null>(null);
  const [announce, setAnnounce] = useState("");
  const hiddenIds = new Set(menu.filter((m) => m.hidden).map((m) => m.id));

  useEffect(() => onDirty(form.dirty), [form.dirty, onDirty]);

  // The moved item's inputs are rebuilt in their new place, so focus is put back on them.
  useEffect(() => {
    if (!moved) return;
    const li = listRef.current?.querySelector<HTMLElement>(`[data-item="${moved.id}"]`);
    const same = li?.querySelector<HTMLButtonElement>(`[data-move="${moved.direction}"]`);
    const other = li?.querySelector<HTMLButtonElement>(
      `[data-move="${moved.direction === "up" ? "down" : "up"}"]`,
    );
    (same && !same.disabled ? same : other)?.focus();
    setMoved(null);
  });

  function move(index: number, direction: "up" | "down", id: string, title: string) {
    const to = direction === "up" ? index - 1 : index + 1;
    form.reorder({ name: fields.items.name, from: index, to });
    setMoved({ id, direction });
    setAnnounce(t("access:menu.moved", { title, position: to + 1, total: items.length }));
  }

  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <FormErrors form={form} />
      <p role="status" className="sr-only">
        {announce}
      </p>
      <ol ref={listRef} className="flex flex-col gap-3">
        {items.map((item, i) => {
          const f = item.getFieldset();
          const id = String(f.id.value ?? f.id.initialValue ?? "");
          const title = String(f.title.value ?? f.title.initialValue ?? "");
          const Icon = menuIcon(String(f.icon.value ?? f.icon.initialValue ?? ""));
          const hidden = hiddenIds.has(id);
          return (
            <li
              key={item.key}
              data-item={id}
              className={cn("rounded-md border p-3", hidden && "border-dashed bg-muted/40")}
            >
              <input type="hidden" name={f.id.name} value={id} />
              {hidden ? <Badge className="mb-2">{t("access:menu.hidden")}</Badge> : null}
              <div className="grid items-end gap-2 sm:grid-cols-[auto_1fr_1fr_1fr_1fr_auto]">
                <Icon aria-hidden className="mb-2 size-5" />
                <TextField meta={f.title} label={t("access:menu.itemTitle")} />
                <SelectField meta={f.url} label={t("access:menu.url")}>
                  {/* An address saved before pages were chosen from the list stays until changed. */}
                  {[...new Set([...MENU_PATHS, String(f.url.initialValue ?? "")])]
                    .filter(Boolean)
                    .map((path) => (
                      <option key={path} value={path}>
                        {path}
                      </option>
                    ))}
                </SelectField>
                <SelectField meta={f.icon} label={t("access:menu.icon")}>
                  {Object.keys(MENU_ICONS).map((name) => (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  ))}
                </SelectField>
                <SelectField meta={f.requiredPermission} label={t("access:menu.requiredPermission")}>
                  {PERMISSIONS.map((p) => (
                    <option key={p.key} value={p.key}>
                      {p.key}
                    </option>
                  ))}
                </SelectField>
                <div className="flex gap-1">
                  <Button
                    type="button"
                    variant="secondary"
                    data-move="up"
                    disabled={i === 0}
                    aria-label={t("access:menu.moveUp", { title })}
                    onClick={() => move(i, "up", id, title)}
                  >
                    <ArrowUp aria-hidden className="size-4" />
                  </Button>
                  <Button
                    type="button"
                    variant="secondary"
                    data-move="down"
                    disabled={i === items.length - 1}
                    aria-label={t("access:menu.moveDown", { title })}
                    onClick={() => move(i, "down", id, title)}
                  >
                    <ArrowDown aria-hidden className="size-4" />
                  </Button>
                  <HideToggle id={id} title={title} hidden={hidden} />
                </div>
              </div>
              <div className="mt-2 grid gap-2 sm:grid-cols-2">
                <LocalizedLabelFields meta={f.translations} max={60} />
              </div>
            </li>
          );
        })}
      </ol>
      <div>
        <Button name="intent" value={INTENT} pending={saving}>
          {t("access:menu.save")}
        </Button>
      </div>
    </Form>
  );
}
