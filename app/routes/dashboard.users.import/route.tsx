import { data } from "react-router";
import { can } from "../../access/check";
import { refuseWhileImpersonating, requirePermission } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { say } from "../../i18n/message";
import { createTask } from "../../tasks/create-task.server";
import { planImport, summarise } from "../../users/import.server";
import { importChangesText } from "../../users/import-changes.server";
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, parseImportFile } from "../../users/import-csv";
import type { Route } from "./+types/route";
import { ImportUsers } from "./import-users";

// Users → Import (user.write): a CSV previewed row by row, then imported as a background task.

/** Rows the preview lists; the counts cover all of them. */
const PREVIEW_ROWS = 500;

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "user.write");
  return { maxBytes: IMPORT_MAX_BYTES, maxRows: IMPORT_MAX_ROWS };
}

export const headers = passRetryAfter;

async function fileRows(form: FormData) {
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0)
    return { ok: false as const, problem: { key: "users.import.noFile" as const } };
  return parseImportFile(new Uint8Array(await file.arrayBuffer()));
}

export async function action(args: Route.ActionArgs) {
  await requirePermission(args, "user.write");
  const t = getT(args.context);
  const refused = (intent: string, message: string) =>
    data({ ok: false as const, intent, errors: {}, formError: message }, { status: 400 });
  return handleIntents(args, {
    preview: {
      run: async ({ actor, form }) => {
        const parsed = await fileRows(form);
        if (!parsed.ok) return refused("preview", say(t, parsed.problem));
        const plans = await planImport(actor, parsed.rows);
        return data({
          ok: true as const,
          intent: "preview" as const,
          errors: {},
          formError: null,
          summary: summarise(plans),
          total: plans.length,
          rows: await Promise.all(
            plans.slice(0, PREVIEW_ROWS).map(async (p) => ({
              line: p.line,
              email: p.email,
              outcome: p.outcome,
              // An account's current name and roles are user.read material.
              message:
                p.changes?.length && can(actor, "user.read")
                  ? await importChangesText(t, p.changes)
                  : say(t, p.message),
            })),
          ),
        });
      },
    },
    import: {
      run: async ({ actor, form }) => {
        // The task runs as the person, not as whoever views as them: the audit rows would lose
        // the super admin's name.
        refuseWhileImpersonating(args, actor);
        const parsed = await fileRows(form);
        if (!parsed.ok) return refused("import", say(t, parsed.problem));
        const outcome = await createTask(actor, {
          type: "users.import",
          payload: { rows: parsed.rows, invite: form.get("invite") === "on" },
        });
        if (!outcome.ok) {
          const task = t("tasks:type.usersImport");
          const why =
            outcome.status === "too_many_tasks"
              ? t("tasks:start.tooMany", { task, count: outcome.limit })
              : t("tasks:start.failed", {
                  task,
                  why:
                    outcome.status === 403
                      ? outcome.permission
                      : outcome.issues.map((i) => i.message).join(" "),
                });
          return refused("import", why);
        }
        return data({
          ok: true as const,
          intent: "import" as const,
          errors: {},
          formError: null,
          taskId: outcome.taskId,
        });
      },
    },
  });
}

export default function ImportUsersPage({ loaderData }: Route.ComponentProps) {
  return <ImportUsers {...loaderData} />;
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "importUsers");
