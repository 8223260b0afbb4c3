import { Form } from "react-router";
import { roleHint } from "../../access/role-can";
import { roleLabel } from "../../access/role-labels";
import { CheckboxGroupField, FormErrors, PasswordField, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button } from "../../components/ui/button";
import { DialogClose, DialogFooter } from "../../components/ui/dialog";
import { useTranslation } from "../../i18n/use-translation";
import { createUserSchema } from "../../users/user-schemas";
import type { RoleOption } from "./invite-form";

/** A verified account with a temporary password; the password rule is the schema's. */
export function CreateUserForm({ roles, defaultRoles }: { roles: RoleOption[]; defaultRoles: string[] }) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({
    schema: createUserSchema,
    id: "create-user-form",
    intent: "create",
    defaultValue: { roles: defaultRoles },
  });
  const pending = useIsPending({ intent: "create" });
  return (
    <Form method="post" className="flex flex-col gap-4" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="create" />
      <TextField meta={fields.name} label={t("users:field.name")} autoComplete="off" />
      <TextField meta={fields.email} label={t("users:field.email")} type="email" autoComplete="off" />
      <PasswordField
        meta={fields.password}
        label={t("users:field.temporaryPassword")}
        autoComplete="new-password"
        description={t("users:field.passwordRule", { min: fields.password.minLength })}
      />
      <CheckboxGroupField
        meta={fields.roles}
        legend={t("users:field.roles")}
        options={roles.map((r) => ({ value: r.id, label: roleLabel(t, r), hint: roleHint(t, r) }))}
      />
      <FormErrors form={form} />
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="secondary">
            {t("users:cancel")}
          </Button>
        </DialogClose>
        <Button pending={pending}>{t("users:create.button")}</Button>
      </DialogFooter>
    </Form>
  );
}
