import { Trans } from "react-i18next";
import { useFetcher } from "react-router";
import { z } from "zod";
import { useFormat } from "../../components/format";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { useTranslation } from "../../i18n/use-translation";
import type { SessionDescription } from "../../settings/session-view";
import {
  SectionStatus,
  type SettingsFetcher,
  useSettingsForm,
} from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

const noFields = z.object({});
const LOCK = { page: "/dashboard/settings/security", intents: ["revoke-session", "revoke-others"] } as const;

export function SessionsSection({ sessions }: { sessions: SessionDescription[] }) {
  const { t } = useTranslation();
  const others = useSettingsForm("revoke-others", noFields, { fetcher: useFetcher<typeof action>() });
  // One fetcher for every row's "Sign out": the answer outlives the row it signed out, so the
  // status line (which takes focus) sits under the list, not in the row that disappears.
  const revoke = useFetcher<typeof action>();
  const hasOthers = sessions.some((s) => !s.current);
  return (
    <Card
      title={t("settings:sessions.title")}
      actions={
        hasOthers ? (
          // Locked with the list below, which says why.
          <ViewingAsLock lock={LOCK} note={false}>
            <others.fetcher.Form method="post" {...others.formProps}>
              <input type="hidden" name="intent" value="revoke-others" />
              <Button variant="secondary" pending={others.pending}>
                {t("settings:sessions.signOutOthers")}
              </Button>
            </others.fetcher.Form>
          </ViewingAsLock>
        ) : null
      }
    >
      <ViewingAsLock lock={LOCK}>
        <ul className="divide-y" data-testid="sessions">
          {sessions.map((s) => (
            <SessionItem
              key={s.id}
              session={s}
              form={revoke.Form}
              pending={revoke.state !== "idle" && revoke.formData?.get("session") === s.id}
            />
          ))}
        </ul>
        <SectionStatus answer={revoke.data?.intent === "revoke-session" ? revoke.data : undefined} />
        {others.errors}
        {others.status}
      </ViewingAsLock>
    </Card>
  );
}

function SessionItem({
  session: s,
  form: Form,
  pending,
}: {
  session: SessionDescription;
  form: SettingsFetcher<typeof action>["Form"];
  pending: boolean;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 py-2 text-sm">
      <div className="min-w-0">
        {/* The badge sits beside the name and wraps under it on a narrow screen; it is never cut off. */}
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 font-medium">
          <span className="break-words">{s.device}</span>
          {s.current ? <Badge variant="success">{t("settings:sessions.current")}</Badge> : null}
        </p>
        <p className="break-words text-muted-foreground">
          <Trans
            i18nKey="settings:sessions.details"
            values={{
              lastUsed: s.lastUsed,
              ip: s.ip ?? t("settings:sessions.unknownAddress"),
              signedIn: formatDateTime(s.createdAt),
            }}
            components={{ time: <time dateTime={s.createdAt} /> }}
          />
        </p>
      </div>
      {s.current ? null : (
        <Form method="post">
          <input type="hidden" name="intent" value="revoke-session" />
          <input type="hidden" name="session" value={s.id} />
          <Button
            variant="secondary"
            pending={pending}
            aria-label={t("settings:sessions.signOutLabel", { device: s.device, lastUsed: s.lastUsed })}
          >
            {t("settings:sessions.signOut")}
          </Button>
        </Form>
      )}
    </li>
  );
}
