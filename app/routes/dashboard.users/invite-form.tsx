import { useState } from "react";
import { Form, useActionData } from "react-router";
import { roleHint } from "../../access/role-can";
import { roleLabel } from "../../access/role-labels";
import { inviteSchema } from "../../auth/account-schemas";
import { CheckboxGroupField, FormErrors, TextField } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button } from "../../components/ui/button";
import { DialogClose, DialogFooter } from "../../components/ui/dialog";
import { UnsentInvitation } from "../../components/users/invite-link";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

export type RoleOption = {
  id: string;
  name: string;
  label: string;
  description: string;
  permissions: readonly string[] | "all";
};

/**
 * Invite by email. The schema refuses an invitation with no role, so unticking every role is
 * caught here, before anything is sent: the roles say why and get focus, and a second send with a
 * role ticked goes. An invitation whose email did not go out is said here, with its link to copy
 * (as the pending list offers it), and the emptied form invites the next person.
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
  const answer = useActionData<typeof action>();
  // The dialog reopens on the page's last answer: only one given while it is open is news.
  const [before] = useState(answer);
  const unsent =
    answer !== before && answer?.ok === true && answer.intent === "invite" && "unsent" in answer
      ? { invitation: answer.unsent, message: answer.message }
      : null;
  return (
    <>
      {unsent ? <UnsentInvitation key={unsent.invitation.id} {...unsent} /> : null}
      <Form method="post" className="flex flex-col gap-4" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="invite" />
        <TextField meta={fields.email} label={t("users:invite.email")} type="email" autoComplete="off" />
        <CheckboxGroupField
          meta={fields.roles}
          legend={t("users:invite.roles")}
          options={roles.map((r) => ({ value: r.id, label: roleLabel(t, r), hint: roleHint(t, r) }))}
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
    </>
  );
}
