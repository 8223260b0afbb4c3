import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { Field } from "../ui/field";
import { useSection } from "./use-section";

/** Shown to holders of user.write; the roles offered are only those they may grant. */
export function InviteSection({ roles }: { roles: { id: string; name: string; label: string }[] }) {
  const s = useSection("invite", { resetOnSuccess: true });
  return (
    <Card title="Invite someone">
      <s.fetcher.Form method="post" ref={s.formRef} className="flex flex-col gap-3" noValidate>
        <input type="hidden" name="intent" value="invite" />
        <Field label="Email address to invite" name="email" type="email" required error={s.errors.email} />
        <fieldset aria-describedby={s.errors.roles ? "invite-roles-error" : undefined}>
          <legend className="text-sm font-medium">Roles</legend>
          <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
            {roles.map((r) => (
              <label key={r.id} className="flex items-center gap-2 text-sm">
                <input type="checkbox" name="roles" value={r.id} defaultChecked={r.name === "user"} />
                {r.label}
              </label>
            ))}
          </div>
          {s.errors.roles ? (
            <p id="invite-roles-error" className="mt-1 text-sm text-red-700 dark:text-red-400">
              {s.errors.roles}
            </p>
          ) : null}
        </fieldset>
        {s.status}
        <div>
          <Button pending={s.pending}>Send invitation</Button>
        </div>
      </s.fetcher.Form>
    </Card>
  );
}
