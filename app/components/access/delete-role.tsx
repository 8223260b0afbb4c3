import { useSubmit } from "react-router";
import { useIsPending } from "../forms/use-is-pending";
import { ConfirmDialog } from "../ui/alert-dialog";
import { Button } from "../ui/button";
import type { RoleRow } from "./types";

/**
 * Delete with a confirmation that says who loses the role; when anyone holds it, the role's name
 * must be typed first.
 */
export function DeleteRole({ role }: { role: RoleRow }) {
  const submit = useSubmit();
  const pending = useIsPending({ intent: "delete-role" });
  const members = role.users === 1 ? "1 member" : `${role.users} members`;
  return (
    <ConfirmDialog
      trigger={
        <Button type="button" variant="secondary" className="mt-1 px-2 py-0.5 text-xs" pending={pending}>
          Delete<span className="sr-only"> {role.label}</span>
        </Button>
      }
      title={`Delete the role "${role.label}"?`}
      description={
        role.users > 0
          ? `${members} will lose it, and with it the permissions it gives them. This cannot be undone.`
          : "Nobody holds this role. This cannot be undone."
      }
      actionLabel="Delete role"
      confirmText={role.users > 0 ? role.name : undefined}
      confirmLabel="To confirm, type the role's name"
      onConfirm={() => submit({ intent: "delete-role", roleId: role.id }, { method: "post" })}
    />
  );
}
