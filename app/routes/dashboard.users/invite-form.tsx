import { Form } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { inviteSchema } from "../../auth/account-schemas";
import { CheckboxGroupField, FormErrors, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button } from "../../components/ui/button";
import { DialogClose, DialogFooter } from "../../components/ui/dialog";
import { useTranslation } from "../../i18n/use-translation";

export type RoleOption = { id: string; name: string; label: string };

/**
 * Invite by email. The schema refuses an invitation with no role, so unticking every role is
 * caught here, before anything is sent: the roles say why and get focus, and a second send with a
 * role ticked goes.
 */
export function InviteForm({ roles, defaultRoles }: { roles: RoleOption[]; defaultRoles: string[] }) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({
    schema: inviteSchema,
    id: "invite-form",
    intent: "invite",
    defaultValue: { roles: defaultRoles },
  });
  const pending = useIsPending({ intent: "invite" });
  return (
    <Form method="post" className="flex flex-col gap-4" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="invite" />
      <TextField meta={fields.email} label={t("users:invite.email")} type="email" autoComplete="off" />
      <CheckboxGroupField
        meta={fields.roles}
        legend={t("users:invite.roles")}
        options={roles.map((r) => ({ value: r.id, label: roleLabel(t, r) }))}
      />
      <FormErrors form={form} />
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="secondary">
            {t("users:cancel")}
          </Button>
        </DialogClose>
        <Button pending={pending}>{t("users:invite.send")}</Button>
      </DialogFooter>
    </Form>
  );
}
