import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { Field } from "../ui/field";
import { useSection } from "./use-section";

export function PasswordSection() {
  const s = useSection("password", { resetOnSuccess: true });
  return (
    <Card title="Password">
      <s.fetcher.Form method="post" ref={s.formRef} className="flex flex-col gap-3" noValidate>
        <input type="hidden" name="intent" value="password" />
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          error={s.errors.currentPassword}
        />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          error={s.errors.newPassword}
        />
        <Field
          label="Repeat the new password"
          name="confirm"
          type="password"
          autoComplete="new-password"
          required
          error={s.errors.confirm}
        />
        {s.status}
        <div>
          <Button pending={s.pending}>Change password</Button>
        </div>
      </s.fetcher.Form>
    </Card>
  );
}
