import { useRef, useState } from "react";
import { Form } from "react-router";
import { roleHint } from "../../access/role-can";
import { roleLabel } from "../../access/role-labels";
import { CheckboxGroupField, FormErrors, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Button } from "../../components/ui/button";
import { useTranslation } from "../../i18n/use-translation";
import { updateUserSchema } from "../../users/user-schemas";

const CONFORM_INTENT = "__intent__";

type Role = {
  id: string;
  name: string;
  label: string;
  assignable: boolean;
  description: string;
  permissions: readonly string[] | "all";
};

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
  const formProps = getFormProps(form);
  const save = useRef<HTMLButtonElement>(null);
  const noRoleConfirmed = useRef(false);
  const [askNoRole, setAskNoRole] = useState(false);
  // Unticking every role takes the dashboard away from them: asked first, as a removal of access.
  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    // Conform validates a field by submitting with its own intent button: not a save.
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const validating = submitter?.getAttribute("name") === CONFORM_INTENT;
    const ticked = new FormData(event.currentTarget).getAll(fields.roles.name).length;
    if (!validating && ticked === 0 && user.roleIds.length > 0 && !noRoleConfirmed.current) {
      event.preventDefault();
      setAskNoRole(true);
      return;
    }
    noRoleConfirmed.current = false;
    formProps.onSubmit(event);
  };
  return (
    <Form method="post" className="grid gap-4 sm:grid-cols-2" {...formProps} onSubmit={onSubmit}>
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
            hint: roleHint(t, r),
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
            <Button ref={save} pending={pending}>
              {t("users:account.save")}
            </Button>
            <ConfirmDialog
              open={askNoRole}
              onOpenChange={setAskNoRole}
              returnFocusTo={save}
              title={t("users:account.noRoleTitle", { name: user.name })}
              description={t("users:account.noRoleDescription", { name: user.name })}
              actionLabel={t("users:account.noRoleAction")}
              cancelLabel={t("users:cancel")}
              onConfirm={() => {
                noRoleConfirmed.current = true;
                save.current?.form?.requestSubmit(save.current);
              }}
            />
          </div>
        ) : null}
      </fieldset>
    </Form>
  );
}
