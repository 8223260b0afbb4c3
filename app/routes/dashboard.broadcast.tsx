import { useState } from "react";
import { Form } from "react-router";
import { requirePermission } from "../access/guard.server";
import { handleAction } from "../access/intents.server";
import { roleGrants } from "../access/role-cache.server";
import { formatDateTime } from "../components/format";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { Card, EmptyState, FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { Select } from "../components/ui/select";
import { db } from "../db.server";
import { redirectWithToast, refused } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { broadcastHistory, broadcastSchema, sendBroadcast } from "../notifications/broadcast.server";
import { NOTICE_LEVELS } from "../notifications/levels";
import { createTask } from "../tasks/create-task.server";
import type { Route } from "./+types/dashboard.broadcast";

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "settings.manage");
  const [grants, teams, history] = await Promise.all([
    roleGrants(),
    db().selectFrom("team").select(["id", "name"]).orderBy("name").execute(),
    broadcastHistory(),
  ]);
  return { roles: [...grants.values()].map((r) => ({ id: r.id, label: r.label })), teams, history };
}

// A 429's Retry-After reaches the browser only through this export (actionError maps every failure).
export const headers = passRetryAfter;

/** The composer's fields as the schema reads them: the audience's ids come from its own field. */
function broadcastValues(form: FormData) {
  const kind = String(form.get("audience") ?? "all");
  return {
    title: form.get("title"),
    message: form.get("message"),
    level: form.get("level"),
    link: form.get("link") ?? "",
    audience:
      kind === "all" ? { kind } : { kind, ids: form.getAll(kind === "roles" ? "roleIds" : "teamIds") },
    email: form.get("email") === "on",
  };
}

// One form and no intent field: the failures answer as "send".
export const action = (args: Route.ActionArgs) =>
  handleAction(
    args,
    "send",
    {
      schema: broadcastSchema,
      values: broadcastValues,
      run: async ({ actor, input }) => {
        const { id, recipients } = await sendBroadcast(actor, input, args);
        if (recipients === 0)
          return refused(
            "Nobody is in that audience; the notice was recorded but reached no one.",
            400,
            "send",
          );
        let note = "";
        if (input.email) {
          const task = await createTask(actor, { type: "broadcast.email", payload: { broadcastId: id } });
          note = task.ok
            ? " Emails are being sent in the background."
            : task.status === "too_many_tasks"
              ? ` The emails were not queued: you already have ${task.limit} tasks waiting or running.`
              : " The emails could not be queued.";
        }
        return redirectWithToast("/dashboard/broadcast", {
          kind: "success",
          message: `Sent to ${recipients} ${recipients === 1 ? "person" : "people"}.${note}`,
        });
      },
    },
    { permission: "settings.manage" },
  );

export default function Broadcast({ loaderData, actionData }: Route.ComponentProps) {
  const { roles, teams, history } = loaderData;
  const sending = useIsPending();
  const [audience, setAudience] = useState<"all" | "roles" | "teams">("all");
  const errors = actionData?.errors ?? {};
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Broadcast</h1>
      <Card title="Compose a notice">
        <Form method="post" className="flex flex-col gap-3">
          <Field label="Title" name="title" required maxLength={120} error={errors.title} />
          <div>
            <label htmlFor="broadcast-message" className="block text-sm font-medium">
              Message
            </label>
            <textarea
              id="broadcast-message"
              name="message"
              required
              maxLength={2000}
              rows={4}
              aria-invalid={errors.message ? true : undefined}
              aria-describedby={errors.message ? "broadcast-message-error" : undefined}
              className="mt-1 block w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-sm dark:border-slate-600 dark:bg-slate-900"
            />
            {errors.message ? (
              <p id="broadcast-message-error" className="mt-1 text-sm text-red-700 dark:text-red-400">
                {errors.message}
              </p>
            ) : null}
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            <Select label="Level" name="level" defaultValue="info">
              {NOTICE_LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </Select>
            <Field
              label="Link (optional)"
              name="link"
              placeholder="/dashboard/settings"
              error={errors.link}
            />
          </div>
          <fieldset>
            <legend className="text-sm font-medium">Audience</legend>
            <div className="mt-1 flex gap-4 text-sm">
              {(["all", "roles", "teams"] as const).map((k) => (
                <label key={k} className="flex items-center gap-1">
                  <input
                    type="radio"
                    name="audience"
                    value={k}
                    checked={audience === k}
                    onChange={() => setAudience(k)}
                  />
                  {k === "all" ? "Everyone" : k === "roles" ? "Roles" : "Teams"}
                </label>
              ))}
            </div>
            {audience === "roles" ? (
              <div className="mt-2 flex flex-wrap gap-3 text-sm">
                {roles.map((r) => (
                  <label key={r.id} className="flex items-center gap-1">
                    <input type="checkbox" name="roleIds" value={r.id} /> {r.label}
                  </label>
                ))}
              </div>
            ) : null}
            {audience === "teams" ? (
              <div className="mt-2 flex flex-wrap gap-3 text-sm">
                {teams.length === 0 ? <span>No teams yet.</span> : null}
                {teams.map((t) => (
                  <label key={t.id} className="flex items-center gap-1">
                    <input type="checkbox" name="teamIds" value={t.id} /> {t.name}
                  </label>
                ))}
              </div>
            ) : null}
            {errors.audience ? (
              <p className="mt-1 text-sm text-red-700 dark:text-red-400">{errors.audience}</p>
            ) : null}
          </fieldset>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="email" /> Also send by email
          </label>
          <FormError message={actionData?.formError} />
          <div>
            <Button pending={sending}>Send notice</Button>
          </div>
        </Form>
      </Card>

      <Card title="History">
        {history.length === 0 ? (
          <EmptyState>No broadcasts yet.</EmptyState>
        ) : (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left dark:border-slate-800">
                <th scope="col" className="py-2 pr-3">
                  Sent
                </th>
                <th scope="col" className="py-2 pr-3">
                  Title
                </th>
                <th scope="col" className="py-2 pr-3">
                  Audience
                </th>
                <th scope="col" className="py-2 pr-3 text-right">
                  Recipients
                </th>
                <th scope="col" className="py-2 pr-3 text-right">
                  Read
                </th>
                <th scope="col" className="py-2">
                  Email
                </th>
              </tr>
            </thead>
            <tbody>
              {history.map((b) => (
                <tr key={b.id} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                  <td className="py-2 pr-3">{formatDateTime(b.created_at)}</td>
                  <td className="py-2 pr-3">
                    {b.title} <span className="text-xs text-slate-600 dark:text-slate-400">({b.level})</span>
                  </td>
                  <td className="py-2 pr-3">{b.audience}</td>
                  <td className="py-2 pr-3 text-right">{b.recipient_count}</td>
                  <td className="py-2 pr-3 text-right">{b.reads}</td>
                  <td className="py-2">
                    {b.email_status === "none"
                      ? "—"
                      : `${b.email_status} (${b.emails_sent} sent${b.emails_failed ? `, ${b.emails_failed} failed` : ""})`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Broadcast");
