import type { TFunction } from "i18next";
import { useEffect, useRef } from "react";
import { Link } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useFormat } from "../../components/format";
import { cardClass } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import {
  checkboxClass,
  type RowSelection,
  SelectAllHeader,
  SelectRowCell,
  SortableHeader,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "../../components/ui/table";
import { StatusBadge, VerifiedBadge } from "../../components/users/user-badges";
import { useTranslation } from "../../i18n/use-translation";

export type UserListRow = {
  id: string;
  name: string;
  email: string;
  email_verified: number;
  status: "active" | "disabled";
  last_login_at: string | null;
  created_at: string;
  roles: { name: string; label: string }[];
};

const rolesText = (t: TFunction, row: UserListRow) =>
  row.roles.map((r) => roleLabel(t, r)).join(", ") || t("users:list.noRoles");

/**
 * The users as a table from md up, and as a card list below it (name, email, status, roles), so a
 * phone never scrolls sideways. Only one of the two is displayed, so only one is in the tab order
 * and the accessibility tree.
 */
export function UsersList({ rows, selection }: { rows: UserListRow[]; selection: RowSelection | null }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  return (
    <>
      <Table caption={t("users:list.title")} className="hidden md:block">
        <TableHead>
          {selection ? <SelectAllHeader selection={selection} label={t("users:list.selectAll")} /> : null}
          <SortableHeader column="name" defaultSort="created_at">
            {t("users:column.name")}
          </SortableHeader>
          <SortableHeader column="email" defaultSort="created_at">
            {t("users:column.email")}
          </SortableHeader>
          <TableHeader>{t("users:column.roles")}</TableHeader>
          <SortableHeader column="email_verified" defaultSort="created_at">
            {t("users:column.verified")}
          </SortableHeader>
          <SortableHeader column="status" defaultSort="created_at">
            {t("users:column.status")}
          </SortableHeader>
          <SortableHeader column="last_login_at" defaultSort="created_at">
            {t("users:column.lastSignIn")}
          </SortableHeader>
          <SortableHeader column="created_at" defaultSort="created_at">
            {t("users:column.created")}
          </SortableHeader>
        </TableHead>
        <TableBody>
          {rows.map((u) => (
            <TableRow key={u.id} selected={selection?.isSelected(u.id)}>
              {selection ? (
                <SelectRowCell
                  selection={selection}
                  id={u.id}
                  label={t("users:list.select", { name: u.name })}
                />
              ) : null}
              <TableCell>
                <Link to={`/dashboard/users/${u.id}`} className={linkVariants({ variant: "quiet" })}>
                  {u.name}
                </Link>
              </TableCell>
              <TableCell>{u.email}</TableCell>
              <TableCell>{rolesText(t, u)}</TableCell>
              <TableCell>
                <VerifiedBadge verified={u.email_verified} />
              </TableCell>
              <TableCell>
                <StatusBadge status={u.status} />
              </TableCell>
              <TableCell className="whitespace-nowrap">{formatDateTime(u.last_login_at)}</TableCell>
              <TableCell className="whitespace-nowrap">{formatDateTime(u.created_at)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>

      <div className="flex flex-col gap-2 md:hidden">
        {selection ? <SelectAllBox selection={selection} /> : null}
        <ul aria-label={t("users:list.title")} className="flex flex-col gap-2">
          {rows.map((u) => (
            <li
              key={u.id}
              data-selected={selection?.isSelected(u.id) || undefined}
              className={cn(cardClass, "flex items-start gap-3 p-3 data-selected:bg-primary/5")}
            >
              {selection ? (
                <input
                  type="checkbox"
                  aria-label={t("users:list.select", { name: u.name })}
                  checked={selection.isSelected(u.id)}
                  onChange={() => selection.toggle(u.id)}
                  className={`mt-1 ${checkboxClass}`}
                />
              ) : null}
              <div className="min-w-0 flex-1">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <Link to={`/dashboard/users/${u.id}`} className={linkVariants({ variant: "quiet" })}>
                    {u.name}
                  </Link>
                  <StatusBadge status={u.status} />
                </div>
                <p className="break-all text-sm text-muted-foreground">{u.email}</p>
                <p className="text-sm text-muted-foreground">
                  <span className="sr-only">{t("users:list.rolesPrefix")} </span>
                  {rolesText(t, u)}
                </p>
              </div>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}

/** The card list's "select all", with the same in-between state as the table's header box. */
function SelectAllBox({ selection }: { selection: RowSelection }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = selection.all === "mixed";
  }, [selection.all]);
  return (
    <label className="inline-flex items-center gap-2 text-sm">
      <input
        ref={ref}
        type="checkbox"
        checked={selection.all === true}
        onChange={selection.toggleAll}
        className={checkboxClass}
      />
      {t("users:list.selectAll")}
    </label>
  );
}
