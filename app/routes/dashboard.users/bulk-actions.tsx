import { useEffect, useState } from "react";
import { Form } from "react-router";
import { useFormat } from "../../components/format";
import { useIsPending } from "../../components/forms/use-is-pending";
import { startFailureText, taskToastKey } from "../../components/tasks/task-text";
import { useTaskNotifications } from "../../components/tasks/use-task-notifications";
import { showToast } from "../../components/toaster";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Button } from "../../components/ui/button";
import { Select } from "../../components/ui/select";
import type { RowSelection } from "../../components/ui/table";
import { useSubmissionDone } from "../../components/users/use-submission-done";
import { useTranslation } from "../../i18n/use-translation";
import { ChangeRolesFields } from "./change-roles-fields";
import { nameList } from "./name-list";

const FORM_ID = "bulk-users";
const INTENTS = [
  "bulk-enable",
  "bulk-disable",
  "bulk-delete",
  "bulk-add-role",
  "bulk-remove-role",
  "bulk-change-roles",
  "bulk-add-to-team",
] as const;

type Option = { id: string; label: string };
export type BulkFilter = { q: string; role: string; status: string; verified: string; created: string };

/**
 * The bar over the users list once someone is ticked: enable, disable, add or remove a role, add to
 * a team, export, delete, each behind a confirmation that names who (with their email, so two
 * "Luca Smith"s are told apart). With a whole page ticked it offers "Select all N matching": the
 * acts then go to the list's filters, which the server reads from the page's address.
 */
export function BulkActions({
  selection,
  rows,
  may,
  roles,
  teams,
  total,
  filter,
}: {
  selection: RowSelection;
  rows: { id: string; name: string; email: string; roles: { id: string }[] }[];
  may: { update: boolean; delete: boolean; teams: boolean };
  roles: Option[];
  teams: Option[];
  total: { count: number; capped: boolean };
  filter: BulkFilter;
}) {
  const { t, i18n } = useTranslation();
  const { formatNumber } = useFormat();
  const { start } = useTaskNotifications();
  const [matching, setMatching] = useState(false);
  const filterKey = JSON.stringify(filter);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new filter or a changed tick ends "all matching"
  useEffect(() => setMatching(false), [filterKey, selection.all]);
  const done = () => {
    selection.clear();
    setMatching(false);
  };
  useSubmissionDone(INTENTS, done);
  const pending = useIsPending({ intent: INTENTS });
  const chosen = rows.filter((r) => selection.isSelected(r.id));
  const n = matching ? total.count : chosen.length;
  const totalText = `${formatNumber(total.count)}${total.capped ? "+" : ""}`;
  const countText = matching ? totalText : formatNumber(n);
  const users = matching && total.capped ? t("users:bulk.allMatchingUsers") : t("users:count", { count: n });
  const who = matching
    ? t("users:bulk.whoMatching", { total: countText })
    : nameList(
        chosen.map((r) => `${r.name} (${r.email})`),
        { language: i18n.language, others: (count) => t("users:bulk.others", { count }) },
      );
  const offerMatching = !matching && selection.all === true && (total.capped || total.count > rows.length);

  const exportChosen = async () => {
    const payload = matching ? { filter } : { ids: chosen.map((r) => r.id) };
    const outcome = await start("users.export", payload);
    showToast(
      outcome.ok
        ? { kind: "info", message: t("users:bulk.exportStarted"), key: taskToastKey(outcome.taskId) }
        : { kind: "error", message: startFailureText(t, "users.export", outcome) },
    );
  };

  const confirm = (
    intent: (typeof INTENTS)[number],
    label: string,
    texts: { title: string; description: string; action: string },
    extra?: { variant?: "default"; confirmText?: string; children?: React.ReactNode },
  ) => (
    <ConfirmDialog
      trigger={
        <Button type="button" variant={intent === "bulk-delete" ? "destructive" : "secondary"} size="sm">
          {label}
        </Button>
      }
      title={texts.title}
      description={texts.description}
      actionLabel={texts.action}
      cancelLabel={t("users:cancel")}
      confirmLabel={t("users:typeToConfirm")}
      formId={FORM_ID}
      value={intent}
      {...extra}
    />
  );
  const picker = (name: "roleId" | "teamId", label: string, options: Option[]) => (
    <Select label={label} name={name} form={FORM_ID} required defaultValue="">
      <option value="" disabled>
        {t("users:bulk.choose")}
      </option>
      {options.map((o) => (
        <option key={o.id} value={o.id}>
          {o.label}
        </option>
      ))}
    </Select>
  );

  return (
    <>
      <p className="sr-only" aria-live="polite">
        {n > 0 ? t("users:bulk.selected", { count: n, total: countText }) : ""}
      </p>
      {n === 0 ? null : (
        <Form
          method="post"
          id={FORM_ID}
          aria-label={t("users:bulk.label")}
          aria-busy={pending}
          // On a phone the bar stays in reach at the foot of the screen while the list scrolls.
          className="sticky bottom-2 z-20 flex flex-wrap items-center gap-2 rounded-lg border bg-card p-2 shadow-md md:static md:bg-muted/40 md:shadow-none"
          data-testid="bulk-bar"
        >
          {matching ? (
            <input type="hidden" name="scope" value="matching" />
          ) : (
            chosen.map((r) => <input key={r.id} type="hidden" name="ids" value={r.id} />)
          )}
          <span className="px-1 text-sm font-medium">
            {t("users:bulk.selected", { count: n, total: countText })}
          </span>
          {offerMatching ? (
            <Button type="button" variant="link" size="sm" onClick={() => setMatching(true)}>
              {t("users:bulk.selectMatching", { total: totalText })}
            </Button>
          ) : null}
          <Button type="button" variant="link" size="sm" onClick={done}>
            {t("users:bulk.clear")}
          </Button>
          <span className="flex-1" />
          {may.update
            ? confirm(
                "bulk-enable",
                t("users:bulk.enable"),
                {
                  title: t("users:bulk.enableTitle", { users }),
                  description: t("users:bulk.enableDescription", { who }),
                  action: t("users:bulk.enableAction", { users }),
                },
                { variant: "default" },
              )
            : null}
          {may.update
            ? confirm("bulk-disable", t("users:bulk.disableSelected"), {
                title: t("users:bulk.disableTitle", { users }),
                description: `${t("users:bulk.disableDescription", { who })} ${t("users:bulk.skipsNote")}`,
                action: t("users:bulk.disableAction", { users }),
              })
            : null}
          {may.update && roles.length
            ? confirm(
                "bulk-change-roles",
                t("users:bulk.changeRoles.button"),
                {
                  title: t("users:bulk.changeRoles.title", { users }),
                  description: t("users:bulk.changeRoles.description", { who }),
                  action: t("users:bulk.changeRoles.action", { users }),
                },
                {
                  variant: "default",
                  children: (
                    <ChangeRolesFields
                      form={FORM_ID}
                      roles={roles}
                      chosen={matching ? null : chosen.map((r) => ({ roleIds: r.roles.map((x) => x.id) }))}
                    />
                  ),
                },
              )
            : null}
          {may.teams && teams.length
            ? confirm(
                "bulk-add-to-team",
                t("users:bulk.addToTeam"),
                {
                  title: t("users:bulk.addToTeamTitle", { users }),
                  description: t("users:bulk.addToTeamDescription", { who }),
                  action: t("users:bulk.addToTeamAction", { users }),
                },
                { variant: "default", children: picker("teamId", t("users:bulk.team"), teams) },
              )
            : null}
          <Button type="button" variant="secondary" size="sm" onClick={exportChosen}>
            {t("users:bulk.export")}
          </Button>
          {may.delete
            ? confirm(
                "bulk-delete",
                t("users:bulk.deleteSelected"),
                {
                  title: t("users:bulk.deleteTitle", { users }),
                  description: `${t("users:bulk.deleteDescription", { who })} ${t("users:bulk.skipsNote")}`,
                  action: t("users:bulk.deleteAction", { users }),
                },
                { confirmText: t("users:bulk.deleteConfirm", { users }) },
              )
            : null}
        </Form>
      )}
    </>
  );
}
