import { useId, useRef, useState } from "react";
import { Form } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { ChangePreview } from "../access/change-preview";
import { Button } from "../ui/button";
import { Field, hintClass } from "../ui/field";
import { Select } from "../ui/select";

/**
 * "Grant a role within a team" (decision 044), on a person's page (`choose` picks the team) and on
 * a team's page (`choose` picks the person): the role, an optional last day, and what it gives,
 * previewed once a choice is made (the page answers `preview-grant`).
 */
export const PREVIEW_GRANT = "preview-grant";

export function GrantRoleForm({
  title,
  choose,
  roles,
  pending,
}: {
  title: string;
  choose: React.ReactNode;
  roles: { name: string; label: string }[];
  pending: boolean;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [version, setVersion] = useState(0);
  return (
    <Form
      method="post"
      ref={formRef}
      onChange={() => setVersion((v) => v + 1)}
      // The first focus asks too: the choices already shown are a grant someone may send as they are.
      onFocus={() => setVersion((v) => v || 1)}
      className="mt-4 grid gap-3 sm:grid-cols-3"
      aria-labelledby={titleId}
    >
      <h3 id={titleId} className="text-sm font-semibold sm:col-span-3">
        {title}
      </h3>
      {choose}
      <Select name="role" label={t("users:access.role")} required>
        {roles.map((r) => (
          <option key={r.name} value={r.name}>
            {r.label}
          </option>
        ))}
      </Select>
      <Field name="until" type="date" label={t("users:access.expires")} />
      <p className={`${hintClass} sm:col-span-3`}>{t("users:access.grantHint")}</p>
      <div className="sm:col-span-3">
        <ChangePreview form={formRef} version={version} intent={PREVIEW_GRANT} testId="grant-preview" />
      </div>
      <div className="sm:col-span-3">
        <Button name="intent" value="grant-role" pending={pending}>
          {t("users:access.grant")}
        </Button>
      </div>
    </Form>
  );
}
