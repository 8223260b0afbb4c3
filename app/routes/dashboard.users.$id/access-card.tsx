import { Form } from "react-router";
import { permissionLabel } from "../../access/permission-labels";
import type { PermissionKey } from "../../access/permissions";
import { useFormat } from "../../components/format";
import { Button } from "../../components/ui/button";
import { Card, EmptyState, FormError } from "../../components/ui/card";
import { Select } from "../../components/ui/select";
import { GrantRoleForm } from "../../components/users/grant-role-form";
import { useTranslation } from "../../i18n/use-translation";

// What the person may do and why (decision 044): every permission with the grants that give it or
// what blocks it, the grants within teams, and a form to grant a role within a team.

type GrantOut = {
  role: { id: string; name: string; label: string };
  team: { id: string; name: string } | null;
  expiresAt: string | null;
};

export type AccessRow = {
  permission: string;
  allowed: boolean;
  scope: "everyone" | "teams" | "none";
  grants: GrantOut[];
  blockers: string[];
};

type TeamGrant = GrantOut & { id: string };

type Props = {
  name: string;
  access: AccessRow[];
  teamGrants: TeamGrant[];
  /** Offered when the viewer may change this person's roles: roles (no Super Admin) and teams. */
  grantForm: { roles: { name: string; label: string }[]; teams: { id: string; label: string }[] } | null;
  error: string | null;
  pending: string | null;
};

export function AccessCard({ name, access, teamGrants, grantForm, error, pending }: Props) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const grantText = (g: GrantOut) => {
    const scope = g.team
      ? t("users:access.inTeam", { role: g.role.label, team: g.team.name })
      : t("users:access.overEveryone", { role: g.role.label });
    return g.expiresAt ? `${scope} ${t("users:access.until", { date: formatDateTime(g.expiresAt) })}` : scope;
  };
  const scopeText = (row: AccessRow) =>
    row.scope === "everyone"
      ? t("users:access.scope.everyone")
      : row.scope === "teams"
        ? t("users:access.scope.teams", {
            teams: [...new Set(row.grants.map((g) => g.team?.name ?? ""))].join(", "),
          })
        : t("users:access.scope.none");
  return (
    <Card title={t("users:access.title")}>
      <FormError message={error} />
      <ul className="flex flex-col gap-1 text-sm" data-testid="access-permissions">
        {access.map((row) => (
          <li key={row.permission}>
            <details className="rounded-md px-2 py-1 open:bg-muted/40">
              <summary className="cursor-pointer rounded-sm focus-visible:outline-2 focus-visible:outline-ring">
                <span className={row.allowed ? "font-medium" : "text-muted-foreground"}>
                  {permissionLabel(t, row.permission as PermissionKey)}
                </span>{" "}
                <span className="text-muted-foreground">· {scopeText(row)}</span>
              </summary>
              <div className="mt-1 pl-4">
                <p className="font-medium">{t("users:access.why", { name })}</p>
                {row.allowed ? (
                  <ul className="list-disc pl-5">
                    {row.grants.map((g) => (
                      <li key={`${g.role.id}|${g.team?.id ?? ""}`}>{grantText(g)}</li>
                    ))}
                  </ul>
                ) : (
                  <ul className="list-disc pl-5">
                    {row.blockers.map((b) => (
                      <li key={b}>{t(`users:access.blocker.${b}`)}</li>
                    ))}
                  </ul>
                )}
              </div>
            </details>
          </li>
        ))}
      </ul>

      <h3 className="mt-4 mb-2 text-sm font-semibold">{t("users:access.teamGrants")}</h3>
      {teamGrants.length === 0 ? (
        <EmptyState>{t("users:access.noTeamGrants")}</EmptyState>
      ) : (
        <ul className="divide-y text-sm" data-testid="team-grants">
          {teamGrants.map((g) => (
            <li key={g.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span>{grantText(g)}</span>
              {grantForm ? (
                <Form method="post">
                  <input type="hidden" name="grant" value={g.id} />
                  <Button
                    variant="secondary"
                    size="sm"
                    name="intent"
                    value="revoke-grant"
                    pending={pending === g.id}
                    aria-label={t("users:access.revokeLabel", { grant: grantText(g) })}
                  >
                    {t("users:access.revoke")}
                  </Button>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}

      {grantForm && grantForm.teams.length > 0 ? (
        <GrantRoleForm
          title={t("users:access.grantTitle")}
          roles={grantForm.roles}
          pending={pending === "grant"}
          choose={
            <Select name="team" label={t("users:access.team")} required>
              {grantForm.teams.map((team) => (
                <option key={team.id} value={team.id}>
                  {team.label}
                </option>
              ))}
            </Select>
          }
        />
      ) : null}
    </Card>
  );
}
