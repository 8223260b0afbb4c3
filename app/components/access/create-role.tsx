import { Form } from "react-router";
import { PERMISSIONS } from "../../access/permissions";
import { createRoleSchema } from "../../access/role-schemas";
import { CheckboxGroupField, FormErrors, TextField } from "../forms/fields";
import { getFormProps, useAppForm } from "../forms/use-app-form";
import { useIsPending } from "../forms/use-is-pending";
import { Button } from "../ui/button";

const INTENT = "create-role";

/** A new role; the form empties once it is created. */
export function CreateRole() {
  const [form, fields] = useAppForm({ schema: createRoleSchema, id: "create-role", intent: INTENT });
  const pending = useIsPending({ intent: INTENT });
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <FormErrors form={form} />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField meta={fields.name} label="Name" placeholder="e.g. support_agent" autoComplete="off" />
        <TextField meta={fields.label} label="Label" placeholder="e.g. Support Agent" autoComplete="off" />
      </div>
      <CheckboxGroupField
        meta={fields.permissions}
        legend="Permissions"
        options={PERMISSIONS.map((p) => ({ value: p.key, label: p.label }))}
      />
      <div>
        <Button name="intent" value={INTENT} pending={pending}>
          Create role
        </Button>
      </div>
    </Form>
  );
}
