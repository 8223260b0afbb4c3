import { z } from "zod";
import { requirePermission } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import { pageTitle } from "../../components/page-title";
import { useRevalidateOnTaskChange } from "../../components/tasks/use-task-notifications";
import { EmptyState } from "../../components/ui/card";
import { Pagination } from "../../components/ui/pagination";
import { redirectWithToast } from "../../http/form.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import {
  clearFinishedTasks,
  clearTask,
  parseTaskHistoryQuery,
  taskHistory,
} from "../../tasks/history.server";
import { TASK_REGISTRY } from "../../tasks/registry.server";
import type { Route } from "./+types/route";
import { ReportDemo } from "./report-demo";
import { ClearFinishedTasks, TaskHistoryFilters, TaskHistoryList } from "./task-history";

// The signed-in person's own tasks: whoever asks sees theirs alone (a super admin too).

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const query = parseTaskHistoryQuery(new URL(args.request.url));
  return {
    query: { type: query.type, status: query.status },
    ...(await taskHistory(user.id, query)),
    types: [...TASK_REGISTRY.keys()],
    /** The report's demonstration controls: super admins trying the task system out. */
    demo: user.isSuperAdmin,
  };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

const clearSchema = z.object({ taskId: z.string().max(100) });

export const action = (args: Route.ActionArgs) => {
  const t = getT(args.context);
  // Back to the list as it was filtered (the page's address, not the raw `.data` one).
  const back = (message: string) =>
    redirectWithToast(args.url.pathname + args.url.search, { kind: "success", message });
  return handleIntents(
    args,
    {
      clear: {
        schema: clearSchema,
        run: async ({ actor, input }) => {
          await clearTask(actor, input.taskId, args);
          return back(t("tasks:history.cleared"));
        },
      },
      "clear-finished": {
        run: async ({ actor }) => {
          const count = await clearFinishedTasks(actor, args);
          return back(t("tasks:history.clearedFinished", { count }));
        },
      },
    },
    { permission: "dashboard.access" },
  );
};

export default function TaskHistoryPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { query, rows, start, prev, next, finished, types, demo } = loaderData;
  // A task of this list that starts or finishes meanwhile (from the task centre) shows here too.
  useRevalidateOnTaskChange();
  const filtered = Boolean(query.type || query.status);
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold">{t("tasks:history.title")}</h1>
        <p className="mt-1 text-sm text-muted-foreground">{t("tasks:history.intro")}</p>
      </div>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <TaskHistoryFilters types={types} type={query.type} status={query.status} />
        <ClearFinishedTasks count={finished} />
      </div>
      {rows.length === 0 ? (
        <EmptyState>{filtered ? t("tasks:history.noneMatch") : t("tasks:history.none")}</EmptyState>
      ) : (
        <TaskHistoryList tasks={rows} />
      )}
      <Pagination
        label={t("tasks:history.pages")}
        noun={t("tasks:history.noun")}
        start={start}
        shown={rows.length}
        prev={prev}
        next={next}
        prevLabel={t("tasks:history.newer")}
        nextLabel={t("tasks:history.older")}
      />
      {demo ? <ReportDemo /> : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "tasks");
