import { Form, Link } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { controlVariants } from "../../components/ui/field";
import { linkVariants } from "../../components/ui/link";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";
import { DeleteRole } from "./delete-role";
import type { RoleRow } from "./types";

/**
 * Every role as a row: what it is called, who holds it, how much it grants, and Delete for a
 * custom role the viewer may change. Labels are renamed in the permissions tab's Label row, beside
 * what the role grants.
 */
export function RoleList({ roles }: { roles: RoleRow[] }) {
  const { t } = useTranslation();
  return (
    <div className="flex flex-col gap-3">
      {/* `relative`: the screen-reader-only header text stays inside the scrolling frame on a phone. */}
      <Table caption={t("access:roles.caption")} className="relative">
        <TableHead>
          <TableHeader>{t("access:roles.role")}</TableHeader>
          <TableHeader>{t("access:roles.kind")}</TableHeader>
          <TableHeader align="right">{t("access:roles.members")}</TableHeader>
          <TableHeader align="right">{t("access:roles.permissions")}</TableHeader>
          <TableHeader>{t("access:roles.requestable")}</TableHeader>
          <TableHeader>{t("access:roles.networks")}</TableHeader>
          <TableHeader>
            <span className="sr-only">{t("access:roles.actions")}</span>
          </TableHeader>
        </TableHead>
        <TableBody>
          {roles.map((r) => (
            <TableRow key={r.id}>
              <TableCell>
                <span className="font-medium">{roleLabel(t, r)}</span>
                <code className="block text-xs text-muted-foreground">{r.name}</code>
              </TableCell>
              <TableCell>
                <Badge variant={r.system ? "neutral" : "info"}>
                  {r.system ? t("access:roles.builtIn") : t("access:roles.custom")}
                </Badge>
              </TableCell>
              <TableCell align="right">
                <Link
                  to={`/dashboard/users?role=${encodeURIComponent(r.name)}`}
                  className={linkVariants({ variant: "quiet" })}
                >
                  {r.users}
                  <span className="sr-only"> {t("access:roles.membersOf", { role: roleLabel(t, r) })}</span>
                </Link>
              </TableCell>
              <TableCell align="right">{r.all ? t("access:roles.all") : r.permissions.length}</TableCell>
              <TableCell>
                {r.editable ? (
                  <RequestHours role={r} />
                ) : r.maxRequestHours ? (
                  t("access:roles.upTo", { hours: r.maxRequestHours })
                ) : (
                  t("access:roles.no")
                )}
              </TableCell>
              <TableCell>
                <Link
                  to={`/dashboard/access/roles/${encodeURIComponent(r.name)}/policy`}
                  className={linkVariants()}
                  aria-label={t("access:roles.networksOf", { role: roleLabel(t, r) })}
                >
                  {r.allowedNetworks.length
                    ? t("access:roles.networksCount", { count: r.allowedNetworks.length })
                    : t("access:roles.networksAnywhere")}
                </Link>
              </TableCell>
              <TableCell align="right">
                {!r.system && r.editable ? <DeleteRole role={r} tab="roles" /> : null}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <p className="text-sm text-muted-foreground">{t("access:roles.renameHint")}</p>
    </div>
  );
}

/** Blank: nobody may ask for it; a number: anyone may, for up to that many hours, decided by those who hold it. */
function RequestHours({ role }: { role: RoleRow }) {
  const { t } = useTranslation();
  const label = roleLabel(t, role);
  const id = `request-hours-${role.id}`;
  return (
    <Form method="post" className="flex items-center gap-2">
      <input type="hidden" name="intent" value="role-requestable" />
      <input type="hidden" name="roleId" value={role.id} />
      <label htmlFor={id} className="sr-only">
        {t("access:roles.requestableHours", { role: label })}
      </label>
      <input
        id={id}
        name="hours"
        type="number"
        min={1}
        max={720}
        defaultValue={role.maxRequestHours ?? ""}
        className={controlVariants({ size: "sm", className: "w-20" })}
      />
      <Button size="sm" variant="outline" aria-label={t("access:roles.saveRequestable", { role: label })}>
        {t("access:roles.save")}
      </Button>
    </Form>
  );
}
