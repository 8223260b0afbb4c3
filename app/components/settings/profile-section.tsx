import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { Field } from "../ui/field";
import { useSection } from "./use-section";

export function ProfileSection({ profile }: { profile: { name: string; email: string } }) {
  const name = useSection("profile");
  const email = useSection("email", { resetOnSuccess: true });
  return (
    <Card title="Profile">
      <name.fetcher.Form method="post" className="flex flex-col gap-3" noValidate>
        <input type="hidden" name="intent" value="profile" />
        <Field
          label="Name"
          name="name"
          autoComplete="name"
          required
          defaultValue={profile.name}
          error={name.errors.name}
        />
        {name.status}
        <div>
          <Button pending={name.pending}>Save name</Button>
        </div>
      </name.fetcher.Form>
      <email.fetcher.Form method="post" ref={email.formRef} className="mt-6 flex flex-col gap-3" noValidate>
        <input type="hidden" name="intent" value="email" />
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Your email address is <strong>{profile.email}</strong>. A new address takes effect once you follow
          the link we send to it.
        </p>
        <Field
          label="New email address"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={email.errors.email}
        />
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          error={email.errors.currentPassword}
        />
        {email.status}
        <div>
          <Button pending={email.pending} variant="secondary">
            Change email
          </Button>
        </div>
      </email.fetcher.Form>
    </Card>
  );
}
