import { Form } from "react-router";
import { MENU_ICON_NAMES, MENU_PATHS } from "../../access/menu";
import { addMenuItemSchema } from "../../access/menu-schemas";
import { PERMISSIONS } from "../../access/permissions";
import { FormErrors, SelectField, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button } from "../../components/ui/button";
import { useTranslation } from "../../i18n/use-translation";
import type { MenuRow } from "./types";

const INTENT = "add-menu-item";

/**
 * A new sidebar item, placed last. Its page is chosen from the app's own (never typed, so it
 * cannot lead elsewhere); a page another item already leads to is listed, marked, and not offered.
 * While the menu above has unsaved changes it waits: the list is rebuilt with the new item.
 */
export function AddMenuItem({ menu, menuDirty }: { menu: MenuRow[]; menuDirty: boolean }) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({
    schema: addMenuItemSchema,
    id: "add-menu-item",
    intent: INTENT,
    defaultValue: { icon: "Folder", requiredPermission: "dashboard.access" },
  });
  const pending = useIsPending({ intent: INTENT });
  const used = new Map(menu.map((m) => [m.url, m.title]));
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <FormErrors form={form} />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField meta={fields.title} label={t("access:menu.itemTitle")} autoComplete="off" />
        <SelectField meta={fields.url} label={t("access:add.page")}>
          <option value="">{t("access:add.choosePage")}</option>
          {MENU_PATHS.map((path) => {
            const title = used.get(path);
            return (
              <option key={path} value={path} disabled={title !== undefined}>
                {title === undefined ? path : t("access:add.pageUsed", { path, title })}
              </option>
            );
          })}
        </SelectField>
        <SelectField meta={fields.icon} label={t("access:menu.icon")}>
          {MENU_ICON_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </SelectField>
        <SelectField meta={fields.requiredPermission} label={t("access:menu.requiredPermission")}>
          {PERMISSIONS.map((p) => (
            <option key={p.key} value={p.key}>
              {p.key}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button
          name="intent"
          value={INTENT}
          pending={pending}
          disabled={menuDirty}
          aria-describedby={menuDirty ? "add-menu-item-wait" : undefined}
        >
          {t("access:add.submit")}
        </Button>
        {menuDirty ? (
          <p id="add-menu-item-wait" className="text-sm text-muted-foreground">
            {t("access:add.saveFirst")}
          </p>
        ) : null}
      </div>
    </Form>
  );
}
