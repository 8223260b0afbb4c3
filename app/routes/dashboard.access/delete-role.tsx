import { useSubmit } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useIsPending } from "../../components/forms/use-is-pending";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Button } from "../../components/ui/button";
import { useTranslation } from "../../i18n/use-translation";
import type { RoleRow } from "./types";

/**
 * Delete with a confirmation that says who loses the role; when anyone holds it, the role's name
 * must be typed first.
 */
export function DeleteRole({ role, tab }: { role: RoleRow; tab: "permissions" | "roles" }) {
  const { t } = useTranslation();
  const submit = useSubmit();
  const pending = useIsPending({ intent: "delete-role" });
  return (
    <ConfirmDialog
      trigger={
        <Button
          type="button"
          variant="secondary"
          size="xs"
          className={tab === "permissions" ? "mt-1" : undefined}
          pending={pending}
        >
          {t("access:delete.button")}
          <span className="sr-only"> {roleLabel(t, role)}</span>
        </Button>
      }
      title={t("access:delete.title", { label: roleLabel(t, role) })}
      description={
        role.users > 0 ? t("access:delete.members", { count: role.users }) : t("access:delete.nobody")
      }
      actionLabel={t("access:delete.action")}
      confirmText={role.users > 0 ? role.name : undefined}
      confirmLabel={t("access:delete.confirmLabel")}
      onConfirm={() => submit({ intent: "delete-role", roleId: role.id, tab }, { method: "post" })}
    />
  );
}
