import { Form, Link } from "react-router";
import { permissionLabel } from "../../access/permission-labels";
import { PERMISSIONS, type PermissionKey } from "../../access/permissions";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { EmptyState } from "../../components/ui/card";
import { linkVariants } from "../../components/ui/link";
import { Pagination } from "../../components/ui/pagination";
import { Select } from "../../components/ui/select";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";

// "Who can change settings?" in one screen (decision 044): a permission (and a team), everyone who
// holds it and through which grants, from GET /api/access/who's whoCan(); the same as a CSV.

type Holder = {
  id: string;
  name: string;
  email: string;
  superAdmin: boolean;
  grants: { role: { id: string; label: string }; team: { id: string; name: string } | null }[];
};

export type WhoCanData = {
  permission: string;
  team: string;
  teams: { id: string; label: string }[];
  result: { users: Holder[]; total: number; offset: number; size: number } | null;
};

export function WhoCan({ data }: { data: WhoCanData }) {
  const { t } = useTranslation();
  const { result } = data;
  const csv = new URLSearchParams({ permission: data.permission, format: "csv" });
  if (data.team) csv.set("team", data.team);
  return (
    <div className="flex flex-col gap-4">
      <Form method="get" className="flex flex-wrap items-end gap-3" aria-label={t("access:who.title")}>
        <input type="hidden" name="tab" value="who" />
        <Select name="permission" label={t("access:who.permission")} defaultValue={data.permission} required>
          <option value="">{t("access:who.choose")}</option>
          {PERMISSIONS.map((p) => (
            <option key={p.key} value={p.key}>
              {permissionLabel(t, p.key)}
            </option>
          ))}
        </Select>
        <Select name="team" label={t("access:who.team")} defaultValue={data.team}>
          <option value="">{t("access:who.anyTeam")}</option>
          {data.teams.map((team) => (
            <option key={team.id} value={team.id}>
              {team.label}
            </option>
          ))}
        </Select>
        <Button variant="secondary">{t("access:who.show")}</Button>
      </Form>
      {result === null ? (
        <p className="text-sm text-muted-foreground">{t("access:who.hint")}</p>
      ) : result.users.length === 0 ? (
        <EmptyState>{t("access:who.nobody")}</EmptyState>
      ) : (
        <>
          <Table
            caption={t("access:who.caption", {
              permission: permissionLabel(t, data.permission as PermissionKey),
            })}
          >
            <TableHead>
              <TableHeader>{t("access:who.person")}</TableHeader>
              <TableHeader>{t("access:who.through")}</TableHeader>
            </TableHead>
            <TableBody>
              {result.users.map((u) => (
                <TableRow key={u.id}>
                  <TableCell>
                    <Link to={`/dashboard/users/${u.id}`} className={linkVariants({ variant: "quiet" })}>
                      {u.name}
                    </Link>
                    <span className="block text-xs text-muted-foreground">{u.email}</span>
                    {u.superAdmin ? <Badge variant="info">{t("access:who.superAdmin")}</Badge> : null}
                  </TableCell>
                  <TableCell>
                    {u.grants
                      .map((g) =>
                        g.team
                          ? t("users:access.inTeam", { role: g.role.label, team: g.team.name })
                          : t("users:access.overEveryone", { role: g.role.label }),
                      )
                      .join("; ")}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          <Pagination
            label={t("access:who.pages")}
            start={result.offset + 1}
            shown={result.users.length}
            total={{ count: result.total, capped: false }}
            noun={t("access:who.noun", { count: result.total })}
            prev={result.offset > 0 ? String(Math.max(0, result.offset - result.size)) : null}
            next={result.offset + result.size < result.total ? String(result.offset + result.size) : null}
          />
        </>
      )}
      {result?.users.length ? (
        <a href={`/api/access/who?${csv}`} download className={linkVariants()}>
          {t("access:who.csv")}
        </a>
      ) : null}
    </div>
  );
}
