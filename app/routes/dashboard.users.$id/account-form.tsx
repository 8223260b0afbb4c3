import { Form } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { CheckboxGroupField, FormErrors, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button } from "../../components/ui/button";
import { useTranslation } from "../../i18n/use-translation";
import { updateUserSchema } from "../../users/user-schemas";

type Role = { id: string; name: string; label: string; assignable: boolean };

/** Name, email and roles of one account; read-only without user.update. */
export function AccountForm({
  user,
  roles,
  mayUpdate,
}: {
  user: { name: string; email: string; roleIds: string[] };
  roles: Role[];
  mayUpdate: boolean;
}) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({
    schema: updateUserSchema,
    id: "account-form",
    intent: "update",
    defaultValue: { name: user.name, email: user.email, roles: user.roleIds },
  });
  const pending = useIsPending({ intent: "update" });
  return (
    <Form method="post" className="grid gap-4 sm:grid-cols-2" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="update" />
      <fieldset disabled={!mayUpdate} className="contents">
        <TextField meta={fields.name} label={t("users:field.name")} autoComplete="off" />
        <TextField meta={fields.email} label={t("users:field.email")} type="email" autoComplete="off" />
        <CheckboxGroupField
          meta={fields.roles}
          legend={t("users:field.roles")}
          className="sm:col-span-2"
          options={roles.map((r) => ({
            value: r.id,
            label: (
              <>
                {roleLabel(t, r)}{" "}
                {!r.assignable ? (
                  <span className="text-xs text-muted-foreground">
                    {t("users:account.beyondPermissions")}
                  </span>
                ) : null}
              </>
            ),
          }))}
        />
        <div className="sm:col-span-2">
          <FormErrors form={form} />
        </div>
        {mayUpdate ? (
          <div className="sm:col-span-2">
            <Button pending={pending}>{t("users:account.save")}</Button>
          </div>
        ) : null}
      </fieldset>
    </Form>
  );
}
