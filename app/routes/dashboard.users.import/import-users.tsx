import { useId, useState } from "react";
import { Link, useFetcher } from "react-router";
import { useFormat } from "../../components/format";
import { TaskItem } from "../../components/tasks/task-item";
import { useTaskNotifications } from "../../components/tasks/use-task-notifications";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { labelClass } from "../../components/ui/field";
import { linkVariants } from "../../components/ui/link";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "../../components/ui/table";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { useTranslation } from "../../i18n/use-translation";
import { IMPORT_TEMPLATE } from "../../users/import-format";
import type { action } from "./route";

// Users → Import: choose a CSV, see what each row would do, then run it as a background task whose
// progress and per-row result (a file to download) appear here live.

type Outcome = "create" | "update" | "skip" | "error";
type Preview = Extract<
  NonNullable<ReturnType<typeof useFetcher<typeof action>>["data"]>,
  { intent: "preview" }
>;

const VARIANT = { create: "success", update: "info", skip: "neutral", error: "destructive" } as const;

const TEMPLATE_HREF = `data:text/csv;charset=utf-8,${encodeURIComponent(IMPORT_TEMPLATE)}`;

export function ImportUsers({ maxBytes, maxRows }: { maxBytes: number; maxRows: number }) {
  const { t } = useTranslation();
  const { formatNumber } = useFormat();
  const fetcher = useFetcher<typeof action>();
  const [tooLarge, setTooLarge] = useState(false);
  const [chosen, setChosen] = useState(false);
  // A preview belongs to the file it checked: choosing another hides it until that one is checked.
  const [fileVersion, setFileVersion] = useState(0);
  const [previewedVersion, setPreviewedVersion] = useState(-1);
  const fileId = useId();
  const inviteId = useId();
  const answer = fetcher.data;
  const busy = fetcher.state !== "idle";
  const submitting = (intent: string) => busy && fetcher.formData?.get("intent") === intent;
  const preview =
    answer?.ok && answer.intent === "preview" && previewedVersion === fileVersion ? answer : null;
  const started = answer?.ok && answer.intent === "import" ? answer.taskId : null;
  const importable = preview ? preview.summary.create + preview.summary.update : 0;
  const outcomeText = (o: Outcome) => t(`users:import.outcome.${o}`);
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <div>
        <Link to="/dashboard/users" className={linkVariants({ variant: "quiet" })}>
          ← {t("users:list.title")}
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">{t("users:import.title")}</h1>
      </div>
      <Card title={t("users:import.fileTitle")}>
        <p className="mb-3 text-sm text-muted-foreground">
          {t("users:import.intro", { rows: formatNumber(maxRows), mb: maxBytes / 1024 / 1024 })}{" "}
          <a href={TEMPLATE_HREF} download="users-import-template.csv" className={linkVariants()}>
            {t("users:import.template")}
          </a>
        </p>
        <fetcher.Form method="post" encType="multipart/form-data" className="flex flex-col gap-3">
          <div className="flex flex-col gap-1">
            <label htmlFor={fileId} className={labelClass}>
              {t("users:import.file")}
            </label>
            <input
              id={fileId}
              name="file"
              type="file"
              accept=".csv,text/csv"
              required
              aria-describedby={tooLarge ? `${fileId}-error` : undefined}
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                setChosen(Boolean(file));
                setFileVersion((v) => v + 1);
                setTooLarge(Boolean(file && file.size > maxBytes));
              }}
              className="text-sm file:mr-3 file:rounded-md file:border file:bg-secondary file:px-3 file:py-1.5 file:text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
            />
            {tooLarge ? (
              <p id={`${fileId}-error`} className="text-sm text-destructive">
                {t("users:import.tooLarge", { mb: maxBytes / 1024 / 1024 })}
              </p>
            ) : null}
          </div>
          <label htmlFor={inviteId} className="inline-flex items-center gap-2 text-sm">
            <input id={inviteId} type="checkbox" name="invite" className="size-4 accent-primary" />
            {t("users:import.invite")}
          </label>
          {answer && !answer.ok ? <FormError message={answer.formError} /> : null}
          <div className="flex flex-wrap gap-2">
            <Button
              name="intent"
              value="preview"
              onClick={() => setPreviewedVersion(fileVersion)}
              variant="secondary"
              pending={submitting("preview")}
              disabled={tooLarge || !chosen}
            >
              {t("users:import.preview")}
            </Button>
            {preview ? (
              <ViewingAsLock lock={{ page: "/dashboard/users/import", intents: ["import"] }}>
                <Button
                  name="intent"
                  value="import"
                  pending={submitting("import")}
                  disabled={importable === 0 || tooLarge}
                >
                  {t("users:import.run", { count: importable, n: formatNumber(importable) })}
                </Button>
              </ViewingAsLock>
            ) : null}
          </div>
        </fetcher.Form>
      </Card>
      {preview ? <PreviewTable preview={preview} outcomeText={outcomeText} /> : null}
      {started ? <ImportProgress taskId={started} /> : null}
    </div>
  );
}

function PreviewTable({ preview, outcomeText }: { preview: Preview; outcomeText: (o: Outcome) => string }) {
  const { t } = useTranslation();
  const { formatNumber } = useFormat();
  const { summary } = preview;
  return (
    <Card title={t("users:import.previewTitle")}>
      <p role="status" className="mb-3 flex flex-wrap gap-2 text-sm" data-testid="import-summary">
        {(["create", "update", "skip", "error"] as const).map((o) => (
          <Badge key={o} variant={VARIANT[o]}>
            {t(`users:import.count.${o}`, { count: summary[o], n: formatNumber(summary[o]) })}
          </Badge>
        ))}
      </p>
      {preview.total > preview.rows.length ? (
        <p className="mb-2 text-sm text-muted-foreground">
          {t("users:import.firstRows", {
            shown: formatNumber(preview.rows.length),
            total: formatNumber(preview.total),
          })}
        </p>
      ) : null}
      <Table caption={t("users:import.previewTitle")}>
        <TableHead>
          <TableHeader>{t("users:import.line")}</TableHeader>
          <TableHeader>{t("users:import.email")}</TableHeader>
          <TableHeader>{t("users:import.outcomeHeader")}</TableHeader>
          <TableHeader>{t("users:import.message")}</TableHeader>
        </TableHead>
        <TableBody>
          {preview.rows.map((r) => (
            <TableRow key={r.line}>
              <TableCell>{r.line}</TableCell>
              <TableCell className="break-all">{r.email}</TableCell>
              <TableCell>
                <Badge variant={VARIANT[r.outcome]}>{outcomeText(r.outcome)}</Badge>
              </TableCell>
              <TableCell>{r.message}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}

/** The started import as the task centre knows it: live progress, then the result and its file. */
function ImportProgress({ taskId }: { taskId: string }) {
  const { t } = useTranslation();
  const { tasks } = useTaskNotifications();
  const task = tasks.find((x) => x.id === taskId);
  return (
    <Card title={t("users:import.runTitle")}>
      <div aria-live="polite" data-testid="import-task">
        {task ? (
          <ul>
            <TaskItem task={task} />
          </ul>
        ) : (
          <p className="text-sm text-muted-foreground">{t("users:import.starting")}</p>
        )}
      </div>
    </Card>
  );
}
