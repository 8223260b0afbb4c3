import { useRouteLoaderData } from "react-router";
import { z } from "zod";
import { can } from "../../access/check";
import { permissionLabel } from "../../access/permission-labels";
import { PERMISSIONS } from "../../access/permissions";
import { roleLabel } from "../../access/role-labels";
import { auditActionText } from "../../audit/action-text";
import { requirePermission } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import { useFormat } from "../../components/format";
import { pageTitle } from "../../components/page-title";
import { TaskActions } from "../../components/tasks/task-actions";
import { Badge } from "../../components/ui/badge";
import { Card } from "../../components/ui/card";
import { passRetryAfter } from "../../http/responses";
import { useTranslation } from "../../i18n/use-translation";
import { overviewFor } from "../../overview/overview.server";
import { MARKABLE, markSetupStep, setupChecklist } from "../../overview/setup-checklist.server";
import type { loader as rootLoader } from "../../root";
import type { Route } from "./+types/route";
import { ActivityChart } from "./activity-chart";
import { SetupChecklist } from "./setup-checklist";
import { StatCard } from "./stat-card";
import { TasksCard } from "./tasks-card";

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const [overview, setup] = await Promise.all([overviewFor(user), setupChecklist(user)]);
  return { ...overview, setup };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) =>
  handleIntents(args, {
    "setup-done": {
      schema: z.object({ step: z.enum(MARKABLE) }),
      run: async ({ actor, input }) => {
        await markSetupStep(actor, input.step, args);
        return { ok: true as const, intent: "setup-done" };
      },
    },
  });

export default function DashboardHome({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const root = useRouteLoaderData<typeof rootLoader>("root");
  if (!root?.user) return null;
  const { user } = root;
  const { users, teams, tasks, mail, chart, recent, roles, setup } = loaderData;
  const held = user.isSuperAdmin ? PERMISSIONS : PERMISSIONS.filter((p) => user.permissions.includes(p.key));
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold">{t("overview:welcome", { name: user.name })}</h1>
        <p className="mt-1 text-muted-foreground">{t("overview:signedInAs", { email: user.email })}</p>
      </div>

      {setup ? <SetupChecklist steps={setup} /> : null}

      <div className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4" data-testid="overview-cards">
        {users ? (
          <StatCard
            title={t("overview:users.title")}
            value={users.total}
            testId="users-card"
            details={[
              {
                label: t("overview:users.verified", { n: users.verified }),
                to: "/dashboard/users?verified=yes",
              },
              {
                label: t("overview:users.disabled", { n: users.disabled }),
                to: "/dashboard/users?status=disabled",
              },
              // The same week the count covers (list.server.ts createdSince).
              {
                label: t("overview:users.newThisWeek", { n: users.newThisWeek }),
                to: "/dashboard/users?created=7d",
              },
            ]}
          />
        ) : null}
        {teams ? <StatCard title={t("overview:teams.title")} value={teams.total} /> : null}
        <TasksCard
          title={user.isSuperAdmin ? t("overview:tasks.titleAll") : t("overview:tasks.titleOwn")}
          counts={tasks}
          own={!user.isSuperAdmin}
        />
        {mail ? (
          <StatCard
            title={t("overview:mail.title")}
            value={(mail.sent ?? 0) + (mail.outbox ?? 0)}
            details={[
              // The mail log that lists them is on Settings' System tab.
              { label: t("overview:mail.sent", { n: mail.sent ?? 0 }), to: "/dashboard/settings/system" },
              { label: t("overview:mail.outbox", { n: mail.outbox ?? 0 }), to: "/dashboard/settings/system" },
              { label: t("overview:mail.failed", { n: mail.failed ?? 0 }), to: "/dashboard/settings/system" },
            ]}
          />
        ) : null}
      </div>

      <TaskActions canExportUsers={can(user, "user.read")} />

      <Card title={t("overview:chart.title")}>
        <ActivityChart
          days={chart.days}
          emptyText={chart.signIns ? t("overview:chart.emptyAll") : t("overview:chart.emptyOwn")}
          series={[
            ...(chart.signIns
              ? [
                  {
                    label: t("overview:chart.signIns"),
                    values: chart.signIns,
                    className: "fill-chart-1",
                  },
                ]
              : []),
            {
              label: user.isSuperAdmin ? t("overview:chart.tasks") : t("overview:chart.ownTasks"),
              values: chart.tasks,
              className: "fill-chart-2",
            },
          ]}
        />
      </Card>

      {recent ? (
        <Card title={t("overview:recent.title")}>
          <ul className="flex flex-col gap-1 text-sm" data-testid="recent-activity">
            {recent.map((r) => (
              <li key={r.id}>
                {auditActionText(t, r.actionKey)} · {r.actor ?? t("overview:recent.anonymous")} ·{" "}
                {formatDateTime(r.created_at)}
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      <div className="grid gap-4 md:grid-cols-2">
        <Card title={t("overview:roles")}>
          <ul className="flex flex-wrap gap-2" data-testid="my-roles">
            {roles.map((r) => (
              <li key={r.name}>
                <Badge variant="info">{roleLabel(t, r)}</Badge>
              </li>
            ))}
          </ul>
        </Card>
        <Card title={user.isSuperAdmin ? t("overview:permissionsAll") : t("overview:permissions")}>
          <ul className="grid gap-1" data-testid="my-permissions">
            {held.map((p) => (
              <li key={p.key} className="text-sm">
                {permissionLabel(t, p.key)}
              </li>
            ))}
          </ul>
        </Card>
      </div>
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "dashboard");
