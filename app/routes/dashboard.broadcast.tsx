import { useEffect, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { requirePermission } from "../access/guard.server";
import { handleAction } from "../access/intents.server";
import { roleGrants } from "../access/role-cache.server";
import { useFormat } from "../components/format";
import { FormErrors, SelectField, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { LEVEL_LABEL, LevelBadge } from "../components/notifications/level-badge";
import { pageTitle } from "../components/page-title";
import { ConfirmDialog } from "../components/ui/alert-dialog";
import { Button } from "../components/ui/button";
import { Card } from "../components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../components/ui/table";
import { db } from "../db.server";
import { redirectWithToast, refused } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { parseSubmission } from "../http/submission";
import { countAudience } from "../notifications/audience.server";
import { broadcastHistory, sendBroadcast } from "../notifications/broadcast.server";
import {
  AUDIENCE_KINDS,
  audienceOf,
  audienceSchema,
  broadcastFormSchema,
  toBroadcastInput,
} from "../notifications/broadcast-schema";
import { NOTICE_LEVELS } from "../notifications/levels";
import { createTask } from "../tasks/create-task.server";
import type { Route } from "./+types/dashboard.broadcast";

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "settings.manage");
  // `audience` (+ roleIds/teamIds) asks how many people it reaches: the composer's confirmation.
  const params = new URL(args.request.url).searchParams;
  const asked = params.has("audience")
    ? audienceSchema.safeParse(
        audienceOf({
          audience: params.get("audience") ?? "",
          roleIds: params.getAll("roleIds"),
          teamIds: params.getAll("teamIds"),
        }),
      )
    : null;
  // The teams to choose from only when the composer asks (`?teams`, once "Teams" is picked): a view
  // of the page does not carry every team (docs/decisions/016-maintained-counts.md).
  const [grants, teams, history, audienceSize] = await Promise.all([
    roleGrants(),
    params.has("teams") ? db().selectFrom("team").select(["id", "name"]).orderBy("name").execute() : null,
    broadcastHistory(),
    asked?.success ? countAudience(asked.data) : null,
  ]);
  return {
    roles: [...grants.values()].map((r) => ({ id: r.id, label: r.label })),
    teams,
    history,
    audienceSize,
  };
}

// A 429's Retry-After reaches the browser only through this export (actionError maps every failure).
export const headers = passRetryAfter;

// One form; its failures answer as "send".
export const action = (args: Route.ActionArgs) =>
  handleAction(
    args,
    "send",
    {
      schema: broadcastFormSchema,
      run: async ({ actor, input }) => {
        const { id, recipients } = await sendBroadcast(actor, toBroadcastInput(input), args);
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

const EMAIL_STATUS: Record<string, string> = {
  pending: "Queued",
  sending: "Sending",
  done: "Sent",
  failed: "Failed",
};

export default function Broadcast({ loaderData }: Route.ComponentProps) {
  const { formatDateTime } = useFormat();
  const { history } = loaderData;
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Broadcast</h1>
      <Composer roles={loaderData.roles} />
      <Card title="History">
        <Table caption="Broadcasts sent">
          <TableHead>
            <TableHeader>Sent</TableHeader>
            <TableHeader>Title</TableHeader>
            <TableHeader>Level</TableHeader>
            <TableHeader>Audience</TableHeader>
            <TableHeader align="right">Recipients</TableHeader>
            <TableHeader align="right">Read</TableHeader>
            <TableHeader>Email</TableHeader>
          </TableHead>
          <TableBody>
            {history.length === 0 ? (
              <TableEmpty colSpan={7}>No broadcasts yet.</TableEmpty>
            ) : (
              history.map((b) => (
                <TableRow key={b.id}>
                  <TableCell className="whitespace-nowrap">{formatDateTime(b.created_at)}</TableCell>
                  <TableCell>{b.title}</TableCell>
                  <TableCell>
                    <LevelBadge level={b.level} />
                  </TableCell>
                  <TableCell>{b.audience}</TableCell>
                  <TableCell align="right">{b.recipient_count}</TableCell>
                  <TableCell align="right">{b.reads}</TableCell>
                  <TableCell>
                    {b.email_status === "none"
                      ? "—"
                      : `${EMAIL_STATUS[b.email_status] ?? b.email_status} (${b.emails_sent} sent${b.emails_failed ? `, ${b.emails_failed} failed` : ""})`}
                  </TableCell>
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
      </Card>
    </div>
  );
}

type Choice = { id: string; label: string };

function Composer({ roles }: { roles: Choice[] }) {
  const [form, fields] = useAppForm({
    schema: broadcastFormSchema,
    id: "broadcast",
    intent: "send",
    defaultValue: { level: "info", audience: "all" },
  });
  const sending = useIsPending({ intent: "send" });
  const size = useFetcher<typeof loader>();
  const [confirming, setConfirming] = useState(false);
  const [asked, setAsked] = useState<{ query: string; name: string; email: boolean } | null>(null);
  const kind = (fields.audience.value as string | undefined) ?? "all";
  // The teams are fetched once "Teams" is picked.
  const teamChoices = useFetcher<typeof loader>();
  const loadTeams = teamChoices.load;
  const teamsAsked = useRef(false);
  useEffect(() => {
    if (kind !== "teams" || teamsAsked.current) return;
    teamsAsked.current = true;
    loadTeams("/dashboard/broadcast?teams");
  }, [kind, loadTeams]);
  const teams = teamChoices.data?.teams ?? [];

  /** Opens the confirmation once the fields are valid; otherwise conform shows what is wrong. */
  function review(event: React.MouseEvent) {
    event.preventDefault();
    const element = document.getElementById(form.id);
    if (!(element instanceof HTMLFormElement)) return;
    const data = new FormData(element);
    const parsed = parseSubmission(data, broadcastFormSchema);
    if (parsed.status !== "success" || !parsed.value) {
      // A submit that conform stops: it shows the errors; focus goes to the first field to fix.
      element.requestSubmit();
      requestAnimationFrame(() => element.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    const audience = audienceOf(parsed.value);
    const query = new URLSearchParams({ audience: audience.kind });
    if (audience.kind !== "all")
      for (const id of audience.ids) query.append(audience.kind === "roles" ? "roleIds" : "teamIds", id);
    const names =
      audience.kind === "roles"
        ? roles.filter((r) => audience.ids.includes(r.id)).map((r) => r.label)
        : audience.kind === "teams"
          ? teams.filter((t) => audience.ids.includes(t.id)).map((t) => t.name)
          : [];
    const name =
      audience.kind === "all"
        ? "everyone"
        : `${audience.kind === "roles" ? (names.length === 1 ? "the role" : "the roles") : names.length === 1 ? "the team" : "the teams"} ${names.join(", ")}`;
    setAsked({ query: query.toString(), name, email: parsed.value.email === true });
    size.load(`/dashboard/broadcast?${query}`);
    setConfirming(true);
  }

  const count = asked && size.state === "idle" ? size.data?.audienceSize : undefined;
  const people =
    typeof count === "number"
      ? `${count.toLocaleString("en-US")} ${count === 1 ? "person" : "people"}`
      : "counting…";
  const title = asked ? `Send to ${asked.name} (${people})${asked.email ? ", also by email" : ""}?` : "";

  return (
    <Card title="Compose a notice">
      <Form method="post" className="flex flex-col gap-3" {...getFormProps(form)}>
        <TextField meta={fields.title} label="Title" />
        <div>
          <label
            htmlFor={fields.message.id}
            className="block text-sm font-medium text-slate-800 dark:text-slate-200"
          >
            Message
          </label>
          <textarea
            key={fields.message.key}
            id={fields.message.id}
            name={fields.message.name}
            defaultValue={fields.message.initialValue as string | undefined}
            required
            maxLength={2000}
            rows={4}
            aria-invalid={fields.message.errors ? true : undefined}
            aria-describedby={fields.message.errors ? fields.message.errorId : undefined}
            className="mt-1 block w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
          />
          {fields.message.errors ? (
            <p id={fields.message.errorId} className="mt-1 text-sm text-red-700 dark:text-red-400">
              {fields.message.errors[0]}
            </p>
          ) : null}
        </div>
        <div className="grid gap-3 sm:grid-cols-2">
          <SelectField meta={fields.level} label="Level">
            {NOTICE_LEVELS.map((l) => (
              <option key={l} value={l}>
                {LEVEL_LABEL[l]}
              </option>
            ))}
          </SelectField>
          <TextField meta={fields.link} label="Link (optional)" placeholder="/dashboard/settings" />
        </div>
        <fieldset aria-describedby={fields.audience.errors ? fields.audience.errorId : undefined}>
          <legend className="text-sm font-medium text-slate-800 dark:text-slate-200">Audience</legend>
          <div className="mt-1 flex gap-4 text-sm">
            {AUDIENCE_KINDS.map((k) => (
              <label key={k} className="flex items-center gap-1">
                <input
                  type="radio"
                  name={fields.audience.name}
                  value={k}
                  defaultChecked={k === "all"}
                  className="accent-indigo-600"
                />
                {k === "all" ? "Everyone" : k === "roles" ? "Roles" : "Teams"}
              </label>
            ))}
          </div>
          {kind === "roles" ? (
            <div className="mt-2 flex flex-wrap gap-3 text-sm">
              {roles.map((r) => (
                <label key={r.id} className="flex items-center gap-1">
                  <input
                    type="checkbox"
                    name={fields.roleIds.name}
                    value={r.id}
                    className="accent-indigo-600"
                  />{" "}
                  {r.label}
                </label>
              ))}
            </div>
          ) : null}
          {kind === "teams" ? (
            <div className="mt-2 flex flex-wrap gap-3 text-sm">
              {!teamChoices.data ? (
                <span role="status">Loading teams…</span>
              ) : teams.length === 0 ? (
                <span>No teams yet.</span>
              ) : null}
              {teams.map((t) => (
                <label key={t.id} className="flex items-center gap-1">
                  <input
                    type="checkbox"
                    name={fields.teamIds.name}
                    value={t.id}
                    className="accent-indigo-600"
                  />{" "}
                  {t.name}
                </label>
              ))}
            </div>
          ) : null}
          {/* The line is always there: an error coming or going as the role boxes lose focus must not
              move "Send notice" between a click's press and release. */}
          <p id={fields.audience.errorId} className="mt-1 min-h-5 text-sm text-red-700 dark:text-red-400">
            {fields.audience.errors?.[0]}
          </p>
        </fieldset>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name={fields.email.name} className="accent-indigo-600" /> Also send by email
        </label>
        <FormErrors form={form} />
        <div>
          <ConfirmDialog
            open={confirming}
            onOpenChange={setConfirming}
            trigger={
              <Button type="button" pending={sending} onClick={review}>
                Send notice
              </Button>
            }
            title={title}
            description={
              asked?.email
                ? "Everyone in the audience gets the notice in the bell and by email. This cannot be undone."
                : "Everyone in the audience gets the notice in the bell. This cannot be undone."
            }
            actionLabel="Send notice"
            variant="primary"
            formId={form.id}
            value="send"
          />
        </div>
      </Form>
    </Card>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "broadcast");
