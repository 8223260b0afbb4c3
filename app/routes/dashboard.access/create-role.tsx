import { Form } from "react-router";
import { permissionLabel } from "../../access/permission-labels";
import { PERMISSIONS } from "../../access/permissions";
import { createRoleSchema } from "../../access/role-schemas";
import { CheckboxGroupField, FormErrors, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button } from "../../components/ui/button";
import { useTranslation } from "../../i18n/use-translation";
import { LocalizedLabelFields } from "./localized-label-fields";

const INTENT = "create-role";

/** A new role; the form empties once it is created. */
export function CreateRole() {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: createRoleSchema, id: "create-role", intent: INTENT });
  const pending = useIsPending({ intent: INTENT });
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <FormErrors form={form} />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          meta={fields.name}
          label={t("access:create.name")}
          placeholder={t("access:create.namePlaceholder")}
          autoComplete="off"
        />
        <TextField
          meta={fields.label}
          label={t("access:create.label")}
          placeholder={t("access:create.labelPlaceholder")}
          autoComplete="off"
        />
        <LocalizedLabelFields meta={fields.translations} max={80} className="sm:col-start-2" />
        <TextField
          meta={fields.description}
          label={t("access:create.description")}
          placeholder={t("access:matrix.descriptionPlaceholder")}
          autoComplete="off"
          className="sm:col-span-2"
        />
      </div>
      <CheckboxGroupField
        meta={fields.permissions}
        legend={t("access:create.permissions")}
        options={PERMISSIONS.map((p) => ({ value: p.key, label: permissionLabel(t, p.key) }))}
      />
      <div>
        <Button name="intent" value={INTENT} pending={pending}>
          {t("access:create.submit")}
        </Button>
      </div>
    </Form>
  );
}
