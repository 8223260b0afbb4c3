import { MoreHorizontal } from "lucide-react";
import { useRef, useState } from "react";
import { Form, Link, useSubmit } from "react-router";
import { useFormat } from "../../components/format";
import { teamRoleText } from "../../components/teams/team-role";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from "../../components/ui/dropdown-menu";
import { Field } from "../../components/ui/field";
import { linkVariants } from "../../components/ui/link";
import { FilterForm } from "../../components/ui/list-filters";
import { Pagination } from "../../components/ui/pagination";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";
import type { TeamRole } from "../../teams/team-roles";
import { AddMembersDialog } from "./add-members-dialog";

type Member = { id: string; name: string; email: string; team_role: string };
type Team = {
  id: string;
  name: string;
  memberCount: number;
  members: Member[];
  membersPage: { start: number; prev: string | null; next: string | null };
};

const REMOVE_FORM = "remove-member";

/** The members with what is done to them: adding at the top, a menu on each row, a search. */
export function MembersCard({
  team,
  member,
  mayWrite,
  mayAdd,
}: {
  team: Team;
  /** The member search as applied (`?member=`). */
  member: string;
  mayWrite: boolean;
  mayAdd: boolean;
}) {
  const { t } = useTranslation();
  const { formatNumber } = useFormat();
  const [removing, setRemoving] = useState<Member | null>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  const columns = mayWrite ? 4 : 3;
  return (
    <Card title={t("teams:members.title", { count: formatNumber(team.memberCount) })}>
      <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
        <FilterForm
          label={t("teams:members.filter")}
          applyLabel={t("teams:members.apply")}
          applied={{ member }}
        >
          <Field
            label={t("teams:members.search")}
            name="member"
            type="search"
            defaultValue={member}
            className="w-full sm:w-64"
          />
        </FilterForm>
        {mayAdd ? <AddMembersDialog teamId={team.id} teamName={team.name} /> : null}
      </div>
      <Table caption={t("teams:members.caption", { name: team.name })}>
        <TableHead>
          <TableHeader>{t("teams:column.name")}</TableHeader>
          <TableHeader>{t("teams:column.email")}</TableHeader>
          <TableHeader>{t("teams:column.teamRole")}</TableHeader>
          {mayWrite ? (
            <TableHeader align="right">
              <span className="sr-only">{t("teams:column.actions")}</span>
            </TableHeader>
          ) : null}
        </TableHead>
        <TableBody>
          {team.members.length === 0 ? (
            <TableEmpty colSpan={columns}>
              {member ? t("teams:members.noMatch", { query: member }) : t("teams:members.empty")}
            </TableEmpty>
          ) : (
            team.members.map((m) => (
              <MemberRow
                key={m.id}
                member={m}
                mayWrite={mayWrite}
                onRemove={(from) => {
                  returnTo.current = from;
                  setRemoving(m);
                }}
              />
            ))
          )}
        </TableBody>
      </Table>
      {team.membersPage.prev || team.membersPage.next ? (
        <Pagination
          label={t("teams:members.pages")}
          noun="members"
          // Filtered, the team's count is not the list's.
          range={
            member
              ? undefined
              : t("teams:members.range", {
                  from: formatNumber(team.membersPage.start),
                  to: formatNumber(team.membersPage.start + team.members.length - 1),
                  total: formatNumber(team.memberCount),
                  count: team.memberCount,
                })
          }
          prevLabel={t("teams:list.previous")}
          nextLabel={t("teams:list.next")}
          start={team.membersPage.start}
          shown={team.members.length}
          total={member ? null : { count: team.memberCount, capped: false }}
          prev={team.membersPage.prev}
          next={team.membersPage.next}
        />
      ) : null}
      {mayWrite ? (
        <>
          <Form method="post" id={REMOVE_FORM}>
            <input type="hidden" name="userId" value={removing?.id ?? ""} />
          </Form>
          <ConfirmDialog
            open={removing !== null}
            onOpenChange={(open) => {
              if (!open) setRemoving(null);
            }}
            returnFocusTo={returnTo}
            title={t("teams:member.removeTitle", { name: removing?.name, team: team.name })}
            description={t("teams:member.removeDescription", { name: removing?.name, team: team.name })}
            actionLabel={t("teams:member.removeAction")}
            cancelLabel={t("teams:cancel")}
            formId={REMOVE_FORM}
            value="remove-member"
          />
        </>
      ) : null}
    </Card>
  );
}

function MemberRow({
  member,
  mayWrite,
  onRemove,
}: {
  member: Member;
  mayWrite: boolean;
  onRemove: (from: HTMLElement | null) => void;
}) {
  const { t } = useTranslation();
  const submit = useSubmit();
  const trigger = useRef<HTMLButtonElement>(null);
  const role = member.team_role as TeamRole;
  const other: TeamRole = role === "lead" ? "member" : "lead";
  return (
    <TableRow>
      <TableCell>
        <Link to={`/dashboard/users/${member.id}`} className={linkVariants({ variant: "quiet" })}>
          {member.name}
        </Link>
      </TableCell>
      <TableCell className="break-all">{member.email}</TableCell>
      <TableCell>
        <Badge variant={role === "lead" ? "info" : "neutral"}>{teamRoleText(t, role)}</Badge>
      </TableCell>
      {mayWrite ? (
        <TableCell align="right">
          <DropdownMenu>
            <DropdownMenuTrigger ref={trigger}>
              <Button
                type="button"
                variant="ghost"
                size="xs"
                aria-label={t("teams:member.actions", { name: member.name })}
              >
                <MoreHorizontal aria-hidden className="size-4" />
              </Button>
            </DropdownMenuTrigger>
            <DropdownMenuContent label={t("teams:member.actions", { name: member.name })}>
              <DropdownMenuItem
                onSelect={() =>
                  submit(
                    { intent: "set-member", userId: member.id, teamRole: other },
                    { method: "post", preventScrollReset: true },
                  )
                }
              >
                {other === "lead" ? t("teams:member.makeLead") : t("teams:member.makeMember")}
              </DropdownMenuItem>
              <DropdownMenuItem onSelect={() => onRemove(trigger.current)} className="text-destructive">
                {t("teams:member.removeAction")}
              </DropdownMenuItem>
            </DropdownMenuContent>
          </DropdownMenu>
        </TableCell>
      ) : null}
    </TableRow>
  );
}
