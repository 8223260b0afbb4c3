import { useCallback, useEffect, useState } from "react";
import { useFetcher } from "react-router";
import { useFormat } from "../../components/format";
import { CheckboxGroupField, TextField } from "../../components/forms/fields";
import { SecretReveal } from "../../components/secret-reveal";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Card, EmptyState } from "../../components/ui/card";
import { Select } from "../../components/ui/select";
import { useTranslation } from "../../i18n/use-translation";
import { REPLAY_HOURS, webhookCreateSchema } from "../../webhooks/endpoint-form";
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from "../../webhooks/event-types";
import { RowRefusal, SectionStatus, useSettingsForm } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

// Settings → Webhooks (settings.manage; docs/decisions/032-outgoing-webhooks.md): endpoints are
// added, paused, tested, rotated and removed through the page's intents; each endpoint's delivery
// log comes from GET /api/webhook-endpoints/:id/deliveries, the same endpoint scripts use.

export type WebhookEndpointItem = {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  secretRotatedUntil: string | null;
};

function SecretOnce({ secret }: { secret: string | undefined }) {
  const { t } = useTranslation();
  return (
    <SecretReveal
      secret={secret}
      title={t("settings:webhooks.revealTitle")}
      note={t("settings:webhooks.secretOnce")}
      testId="webhook-secret"
    />
  );
}

/** `events`: what this person may have sent out (the server refuses the rest). */
export function WebhooksSection({
  endpoints,
  events,
}: {
  endpoints: WebhookEndpointItem[];
  events: string[];
}) {
  const { t } = useTranslation();
  const s = useSettingsForm("webhook-create", webhookCreateSchema, {
    fetcher: useFetcher<typeof action>(),
    defaultValue: { enabled: true, events: events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [] },
  });
  const created = s.fetcher.data;
  const eventOptions = events.map((e) => ({
    value: e,
    label: e === ALL_EVENTS ? t("settings:webhooks.allEvents") : <code>{e}</code>,
  }));
  return (
    <>
      <Card title={t("settings:webhooks.title")}>
        <p className="mb-3 text-sm text-muted-foreground">{t("settings:webhooks.intro")}</p>
        {endpoints.length === 0 ? (
          <EmptyState>{t("settings:webhooks.none")}</EmptyState>
        ) : (
          <ul className="flex flex-col gap-4">
            {endpoints.map((e) => (
              <EndpointItem key={e.id} endpoint={e} />
            ))}
          </ul>
        )}
      </Card>
      <Card title={t("settings:webhooks.addTitle")}>
        <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
          <input type="hidden" name="intent" value="webhook-create" />
          <TextField meta={s.fields.url} label={t("settings:webhooks.url")} type="url" autoComplete="off" />
          <TextField
            meta={s.fields.description}
            label={t("settings:webhooks.description")}
            autoComplete="off"
          />
          <CheckboxGroupField
            meta={s.fields.events}
            legend={t("settings:webhooks.events")}
            options={eventOptions}
            description={t("settings:webhooks.eventsHint")}
          />
          <label className="inline-flex items-center gap-2 text-sm">
            <input type="checkbox" name="enabled" defaultChecked className="size-4 accent-primary" />
            {t("settings:webhooks.enabled")}
          </label>
          {s.errors}
          <div>
            <Button pending={s.pending}>{t("settings:webhooks.add")}</Button>
          </div>
          {s.status}
          <SecretOnce
            secret={created?.ok && created.intent === "webhook-create" ? created.secret : undefined}
          />
        </s.fetcher.Form>
      </Card>
    </>
  );
}

function EndpointItem({ endpoint: e }: { endpoint: WebhookEndpointItem }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const fetcher = useFetcher<typeof action>();
  const [showLog, setShowLog] = useState(false);
  const answer = fetcher.data;
  const act = (intent: string, extra: Record<string, string> = {}) =>
    fetcher.submit({ intent, endpoint: e.id, ...extra }, { method: "post" });
  const busy = fetcher.state !== "idle";
  const label = e.description || e.url;
  return (
    <li className="rounded-md border p-3" data-testid="webhook-endpoint">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium break-all">{e.url}</span>
        {e.enabled ? (
          e.failingSince ? (
            <Badge variant="warning">
              {t("settings:webhooks.failingSince", { when: formatDateTime(e.failingSince) })}
            </Badge>
          ) : (
            <Badge variant="success">{t("settings:webhooks.active")}</Badge>
          )
        ) : (
          <Badge variant={e.disabledReason ? "destructive" : "neutral"}>
            {e.disabledReason ? t("settings:webhooks.disabled") : t("settings:webhooks.pausedBadge")}
          </Badge>
        )}
      </div>
      {e.description ? <p className="text-sm">{e.description}</p> : null}
      <p className="text-sm text-muted-foreground">
        {e.events.includes(ALL_EVENTS) ? t("settings:webhooks.allEvents") : e.events.join(", ")}
      </p>
      {e.disabledReason ? <p className="text-sm text-destructive">{e.disabledReason}</p> : null}
      {e.secretRotatedUntil ? (
        <p className="text-sm text-muted-foreground">
          {t("settings:webhooks.bothSecrets", { until: formatDateTime(e.secretRotatedUntil) })}
        </p>
      ) : null}
      <div className="mt-2 flex flex-wrap gap-2">
        <Button
          type="button"
          variant="secondary"
          size="sm"
          aria-expanded={showLog}
          onClick={() => setShowLog((v) => !v)}
        >
          {showLog ? t("settings:webhooks.hideLog") : t("settings:webhooks.showLog")}
        </Button>
        <Button
          type="button"
          variant="secondary"
          size="sm"
          disabled={busy}
          onClick={() => act("webhook-test")}
        >
          {t("settings:webhooks.sendTest")}
        </Button>
        <Button
          type="button"
          variant="secondary"
          size="sm"
          disabled={busy}
          onClick={() => act("webhook-toggle", { enabled: e.enabled ? "0" : "1" })}
        >
          {e.enabled ? t("settings:webhooks.pause") : t("settings:webhooks.turnOn")}
        </Button>
        <ConfirmDialog
          trigger={
            <Button type="button" variant="secondary" size="sm" disabled={busy}>
              {t("settings:webhooks.rotate")}
            </Button>
          }
          title={t("settings:webhooks.rotateTitle", { endpoint: label })}
          description={t("settings:webhooks.rotateDescription")}
          actionLabel={t("settings:webhooks.rotate")}
          variant="default"
          onConfirm={() => act("webhook-rotate")}
        />
        <ConfirmDialog
          trigger={
            <Button type="button" variant="destructive" size="sm" disabled={busy}>
              {t("settings:webhooks.delete")}
            </Button>
          }
          title={t("settings:webhooks.deleteTitle", { endpoint: label })}
          description={t("settings:webhooks.deleteDescription")}
          actionLabel={t("settings:webhooks.delete")}
          onConfirm={() => act("webhook-delete")}
        />
      </div>
      <SectionStatus answer={answer} />
      <RowRefusal answer={answer} />
      <SecretOnce secret={answer?.ok && answer.intent === "webhook-rotate" ? answer.secret : undefined} />
      {showLog ? <DeliveryLog endpointId={e.id} refreshKey={answer} /> : null}
    </li>
  );
}

type Delivery = {
  id: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  log: { at: string; statusCode: number | null; latencyMs: number; ok: boolean; response: string }[];
};

const STATUS_VARIANT = { pending: "warning", delivered: "success", failed: "destructive" } as const;

function DeliveryLog({ endpointId, refreshKey }: { endpointId: string; refreshKey: unknown }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const [status, setStatus] = useState("");
  const [type, setType] = useState("");
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [failed, setFailed] = useState(false);
  const fetcher = useFetcher<typeof action>();
  const load = useCallback(async () => {
    const query = new URLSearchParams({
      limit: "50",
      ...(status ? { status } : {}),
      ...(type ? { type } : {}),
    });
    try {
      const response = await fetch(`/api/webhook-endpoints/${endpointId}/deliveries?${query}`, {
        headers: { Accept: "application/json" },
      });
      if (!response.ok) throw new Error(String(response.status));
      setDeliveries(((await response.json()) as { deliveries: Delivery[] }).deliveries);
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, [endpointId, status, type]);
  // Reloaded on a filter, after an action on this endpoint, and every few seconds while open.
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), 3_000);
    return () => clearInterval(timer);
  }, [load]);
  const replayed = fetcher.data;
  useEffect(() => {
    if (refreshKey || replayed) void load();
  }, [refreshKey, replayed, load]);
  return (
    <section aria-label={t("settings:webhooks.logTitle")} className="mt-3 flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-3">
        <Select
          label={t("settings:webhooks.filterStatus")}
          value={status}
          onChange={(ev) => setStatus(ev.target.value)}
        >
          <option value="">{t("settings:webhooks.any")}</option>
          <option value="pending">{t("settings:webhooks.status.pending")}</option>
          <option value="delivered">{t("settings:webhooks.status.delivered")}</option>
          <option value="failed">{t("settings:webhooks.status.failed")}</option>
        </Select>
        <Select
          label={t("settings:webhooks.filterType")}
          value={type}
          onChange={(ev) => setType(ev.target.value)}
        >
          <option value="">{t("settings:webhooks.any")}</option>
          {["webhook.test", ...WEBHOOK_EVENT_TYPES].map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </Select>
        <fetcher.Form method="post" className="flex items-end gap-2">
          <input type="hidden" name="intent" value="webhook-replay" />
          <input type="hidden" name="endpoint" value={endpointId} />
          <Select label={t("settings:webhooks.replaySince")} name="hours" defaultValue="24">
            {REPLAY_HOURS.map((h) => (
              <option key={h} value={h}>
                {t("settings:webhooks.hours", { count: h })}
              </option>
            ))}
          </Select>
          <Button variant="secondary" size="sm" pending={fetcher.state !== "idle"}>
            {t("settings:webhooks.replay")}
          </Button>
        </fetcher.Form>
      </div>
      <SectionStatus answer={fetcher.data} />
      {failed ? <p role="alert">{t("settings:webhooks.logUnavailable")}</p> : null}
      {deliveries === null ? (
        <p className="text-sm text-muted-foreground">{t("settings:webhooks.loading")}</p>
      ) : deliveries.length === 0 ? (
        <EmptyState>{t("settings:webhooks.noDeliveries")}</EmptyState>
      ) : (
        <ul className="flex flex-col gap-2" aria-live="polite">
          {deliveries.map((d) => {
            const last = d.log.at(-1);
            return (
              <li key={d.id} className="rounded border p-2 text-sm" data-testid="webhook-delivery">
                <div className="flex flex-wrap items-center gap-2">
                  <code>{d.type}</code>
                  <Badge variant={STATUS_VARIANT[d.status]}>
                    {t(`settings:webhooks.status.${d.status}`)}
                  </Badge>
                  <span className="text-muted-foreground">{formatDateTime(d.createdAt)}</span>
                  <span>{t("settings:webhooks.attempts", { count: d.attempts })}</span>
                  {last ? (
                    <span>
                      {last.statusCode ?? t("settings:webhooks.noAnswer")} · {last.latencyMs} ms
                    </span>
                  ) : null}
                  <fetcher.Form method="post" className="ml-auto">
                    <input type="hidden" name="intent" value="webhook-retry" />
                    <input type="hidden" name="message" value={d.id} />
                    <Button
                      variant="secondary"
                      size="sm"
                      aria-label={t("settings:webhooks.sendAgainLabel", {
                        type: d.type,
                        when: formatDateTime(d.createdAt),
                      })}
                    >
                      {t("settings:webhooks.sendAgain")}
                    </Button>
                  </fetcher.Form>
                </div>
                {last && !last.ok && last.response ? (
                  <pre className="mt-1 max-h-24 overflow-auto whitespace-pre-wrap break-all text-xs text-muted-foreground">
                    {last.response}
                  </pre>
                ) : null}
                {d.nextAttemptAt && d.attempts > 0 ? (
                  <p className="text-xs text-muted-foreground">
                    {t("settings:webhooks.nextAttempt", { when: formatDateTime(d.nextAttemptAt) })}
                  </p>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
