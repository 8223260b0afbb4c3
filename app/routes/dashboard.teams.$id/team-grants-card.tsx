import { Form } from "react-router";
import { useFormat } from "../../components/format";
import { Button } from "../../components/ui/button";
import { Card, EmptyState, FormError } from "../../components/ui/card";
import { Select } from "../../components/ui/select";
import { GrantRoleForm } from "../../components/users/grant-role-form";
import { useTranslation } from "../../i18n/use-translation";

// Roles granted within this team (decision 044): who holds what here, and, for someone who may,
// a grant "in this team" (e.g. Administrator in Sales: its people, teams and audit log permissions
// over Sales only).

type Grant = {
  id: string;
  user: { id: string; name: string };
  role: { label: string };
  expiresAt: string | null;
};

type Props = {
  teamName: string;
  grants: Grant[];
  form: { people: { id: string; name: string }[]; roles: { name: string; label: string }[] } | null;
  error: string | null;
  pending: string | null;
};

export function TeamGrantsCard({ teamName, grants, form, error, pending }: Props) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const line = (g: Grant) =>
    g.expiresAt
      ? `${g.user.name}: ${g.role.label} ${t("users:access.until", { date: formatDateTime(g.expiresAt) })}`
      : `${g.user.name}: ${g.role.label}`;
  return (
    <Card title={t("teams:grants.title", { team: teamName })}>
      <FormError message={error} />
      {grants.length === 0 ? (
        <EmptyState>{t("teams:grants.empty")}</EmptyState>
      ) : (
        <ul className="divide-y text-sm" data-testid="team-role-grants">
          {grants.map((g) => (
            <li key={g.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span>{line(g)}</span>
              {form ? (
                <Form method="post">
                  <input type="hidden" name="grant" value={g.id} />
                  <input type="hidden" name="userId" value={g.user.id} />
                  <Button
                    variant="secondary"
                    size="sm"
                    name="intent"
                    value="revoke-grant"
                    pending={pending === g.id}
                    aria-label={t("users:access.revokeLabel", { grant: line(g) })}
                  >
                    {t("users:access.revoke")}
                  </Button>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {form?.people.length ? (
        <GrantRoleForm
          title={t("teams:grants.grantTitle", { team: teamName })}
          roles={form.roles}
          pending={pending === "grant"}
          choose={
            <Select name="userId" label={t("teams:grants.person")} required>
              {form.people.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </Select>
          }
        />
      ) : null}
    </Card>
  );
}
