import { Trans } from "react-i18next";
import { anyPermissionLabel } from "../../access/permission-labels";
import { useTranslation } from "../../i18n/use-translation";
import { useFormat } from "../format";
import { Badge } from "../ui/badge";

// Settings' API tokens page and a user's page (app/routes/dashboard.users.$id/api-tokens-card.tsx) list
// tokens the same way, so the row is a component rather than a part of either route.

export type ApiTokenItem = {
  id: string;
  name: string;
  permissions: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
  expired: boolean;
};

/** One token: name, permissions, dates (never the secret); `children` is its revoke control. */
export function ApiTokenRow({
  token: tk,
  labels,
  children,
}: {
  token: ApiTokenItem;
  labels: Map<string, string>;
  children?: React.ReactNode;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  // Declared permissions in the reader's language; anything else as the caller labelled it.
  const label = (key: string) =>
    anyPermissionLabel(t, key) !== key ? anyPermissionLabel(t, key) : (labels.get(key) ?? key);
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 py-2 text-sm">
      <div className="min-w-0">
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 font-medium">
          <span className="break-words">{tk.name}</span>
          {tk.expired ? <Badge variant="warning">{t("settings:apiTokens.expired")}</Badge> : null}
        </p>
        <p className="break-words text-muted-foreground">
          {tk.permissions.map(label).join(", ") || t("settings:apiTokens.noPermissions")}
        </p>
        <p className="break-words text-muted-foreground">
          <Trans
            i18nKey="settings:apiTokens.created_at"
            values={{ date: formatDateTime(tk.createdAt) }}
            components={{ time: <time dateTime={tk.createdAt} /> }}
          />{" "}
          ·{" "}
          {tk.lastUsedAt ? (
            <Trans
              i18nKey="settings:apiTokens.lastUsed"
              values={{ date: formatDateTime(tk.lastUsedAt) }}
              components={{ time: <time dateTime={tk.lastUsedAt} /> }}
            />
          ) : (
            t("settings:apiTokens.neverUsed")
          )}{" "}
          ·{" "}
          <Trans
            i18nKey={tk.expired ? "settings:apiTokens.expiredAt" : "settings:apiTokens.expiresAt"}
            values={{ date: formatDateTime(tk.expiresAt) }}
            components={{ time: <time dateTime={tk.expiresAt} /> }}
          />
        </p>
      </div>
      {children}
    </li>
  );
}
