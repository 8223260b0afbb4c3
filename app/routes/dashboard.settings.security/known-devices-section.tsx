import { useFetcher } from "react-router";
import { useFormat } from "../../components/format";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Card, EmptyState } from "../../components/ui/card";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { useTranslation } from "../../i18n/use-translation";
import { SectionStatus } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

type KnownDevice = {
  id: string;
  device: string;
  network: string;
  firstSeenAt: string;
  lastSeenAt: string;
  current: boolean;
};

/**
 * Settings → Password and sessions: the devices the account signed in from, each to forget, and
 * whether a sign-in from a new one is emailed (docs/decisions/035-sign-in-alerts.md).
 */
export function KnownDevicesSection({
  devices,
  alerts,
}: {
  devices: KnownDevice[];
  alerts: { on: boolean; required: boolean };
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const forget = useFetcher<typeof action>();
  const toggle = useFetcher<typeof action>();
  const on = alerts.on || alerts.required;
  const answer = toggle.data ?? forget.data;
  return (
    <Card title={t("settings:devices.title")}>
      <ViewingAsLock
        lock={{ page: "/dashboard/settings/security", intents: ["sign-in-alerts", "forget-device"] }}
      >
        <p className="mb-3 text-sm text-muted-foreground">{t("settings:devices.intro")}</p>
        <toggle.Form method="post" className="mb-4 flex flex-wrap items-center gap-3 text-sm">
          <input type="hidden" name="intent" value="sign-in-alerts" />
          <input type="hidden" name="on" value={on ? "0" : "1"} />
          <span data-testid="sign-in-alerts-state">
            {alerts.required
              ? t("settings:devices.required")
              : on
                ? t("settings:devices.alertsOn")
                : t("settings:devices.alertsOff")}
          </span>
          {alerts.required ? null : (
            <Button variant="secondary" size="sm" pending={toggle.state !== "idle"}>
              {on ? t("settings:devices.turnOff") : t("settings:devices.turnOn")}
            </Button>
          )}
        </toggle.Form>
        {devices.length === 0 ? (
          <EmptyState>{t("settings:devices.none")}</EmptyState>
        ) : (
          <ul className="divide-y" data-testid="known-devices">
            {devices.map((d) => (
              <li key={d.id} className="flex flex-wrap items-center justify-between gap-3 py-2 text-sm">
                <div className="min-w-0">
                  <p className="flex flex-wrap items-center gap-x-2 gap-y-1 font-medium">
                    <span className="break-words">{d.device}</span>
                    {d.current ? <Badge variant="success">{t("settings:devices.current")}</Badge> : null}
                  </p>
                  <p className="break-words text-muted-foreground">
                    {t("settings:devices.details", {
                      network: d.network,
                      first: formatDateTime(d.firstSeenAt),
                      last: formatDateTime(d.lastSeenAt),
                    })}
                  </p>
                </div>
                <forget.Form method="post">
                  <input type="hidden" name="intent" value="forget-device" />
                  <input type="hidden" name="device" value={d.id} />
                  <Button
                    variant="secondary"
                    size="sm"
                    pending={forget.state !== "idle" && forget.formData?.get("device") === d.id}
                    aria-label={t("settings:devices.forgetLabel", { device: d.device, network: d.network })}
                  >
                    {t("settings:devices.forget")}
                  </Button>
                </forget.Form>
              </li>
            ))}
          </ul>
        )}
        <SectionStatus answer={answer?.ok ? answer : undefined} />
        {answer && !answer.ok && answer.formError ? (
          <p role="alert" className="text-sm text-destructive">
            {answer.formError}
          </p>
        ) : null}
      </ViewingAsLock>
    </Card>
  );
}
