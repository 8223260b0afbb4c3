import { useState } from "react";
import { useFetcher } from "react-router";
import {
  API_TOKEN_DEFAULT_DAYS,
  API_TOKEN_EXPIRY_CHOICES,
  createApiTokenSchema,
} from "../../auth/api-token-schemas";
import { useFormat } from "../format";
import { CheckboxGroupField, PasswordField, SelectField, TextField } from "../forms/fields";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, EmptyState } from "../ui/card";
import { SectionStatus, useSettingsForm } from "./use-settings-form";

export type ApiTokenItem = {
  id: string;
  name: string;
  permissions: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
  expired: boolean;
};

type Permission = { key: string; label: string };

const EXPIRY_LABELS: Record<number, string> = {
  7: "7 days",
  30: "30 days",
  90: "90 days",
  180: "180 days",
  365: "1 year",
};

/** Settings' personal API tokens: create (shown once), list, revoke. */
export function ApiTokensSection({
  tokens,
  permissions,
}: {
  tokens: ApiTokenItem[];
  permissions: Permission[];
}) {
  const labels = new Map(permissions.map((p) => [p.key, p.label]));
  const held = new Set(permissions.map((p) => p.key));
  const s = useSettingsForm("create-api-token", createApiTokenSchema, {
    // Conform's default-value type has no room for an array field; the value is what it expects.
    defaultValue: {
      expiresInDays: String(API_TOKEN_DEFAULT_DAYS),
      permissions: held.has("dashboard.access") ? ["dashboard.access"] : [],
    } as never,
  });
  const created = s.fetcher.data as { ok?: boolean; intent?: string; secret?: string } | undefined;
  const secret = created?.ok && created.intent === "create-api-token" ? created.secret : undefined;
  const revoke = useFetcher<{ ok: boolean; intent?: string; message?: string }>();
  return (
    <>
      <Card title="Create an API token">
        <p className="mb-3 text-sm text-slate-700 dark:text-slate-300">
          A token lets a script call the <code>/api</code> endpoints as you, with{" "}
          <code>Authorization: Bearer &lt;token&gt;</code>. It holds only the permissions you pick, and never
          more than you hold yourself.
        </p>
        <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
          <input type="hidden" name="intent" value="create-api-token" />
          <TextField meta={s.fields.name} label="What the token is for" autoComplete="off" />
          <SelectField meta={s.fields.expiresInDays} label="Expires after">
            {API_TOKEN_EXPIRY_CHOICES.map((days) => (
              <option key={days} value={days}>
                {EXPIRY_LABELS[days] ?? `${days} days`}
              </option>
            ))}
          </SelectField>
          <CheckboxGroupField
            meta={s.fields.permissions}
            legend="Permissions"
            options={permissions.map((p) => ({ value: p.key, label: p.label }))}
            description="Only permissions you hold are offered. If you lose one later, the token loses it too."
          />
          <PasswordField
            meta={s.fields.currentPassword}
            label="Current password"
            autoComplete="current-password"
          />
          {s.errors}
          {s.status}
          <div>
            <Button pending={s.pending}>Create token</Button>
          </div>
        </s.fetcher.Form>
        {secret ? <NewToken secret={secret} /> : null}
      </Card>
      <Card title="Your API tokens">
        {tokens.length === 0 ? (
          <EmptyState>You have no API tokens.</EmptyState>
        ) : (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="api-tokens">
            {tokens.map((t) => (
              <ApiTokenRow key={t.id} token={t} labels={labels}>
                <revoke.Form method="post">
                  <input type="hidden" name="intent" value="revoke-api-token" />
                  <input type="hidden" name="apiToken" value={t.id} />
                  <Button
                    variant="secondary"
                    pending={revoke.state !== "idle" && revoke.formData?.get("apiToken") === t.id}
                    aria-label={`Revoke the token ${t.name}`}
                  >
                    Revoke
                  </Button>
                </revoke.Form>
              </ApiTokenRow>
            ))}
          </ul>
        )}
        <SectionStatus answer={revoke.data?.intent === "revoke-api-token" ? revoke.data : undefined} />
        {revoke.data && !revoke.data.ok ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {(revoke.data as { formError?: string }).formError ?? "The token could not be revoked."}
          </p>
        ) : null}
      </Card>
    </>
  );
}

/** The secret, this once, with a copy button. */
function NewToken({ secret }: { secret: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-800 dark:bg-amber-950">
      <label htmlFor="new-api-token" className="block text-sm font-medium text-amber-950 dark:text-amber-100">
        Your new token. Copy it now: it is not shown again.
      </label>
      <div className="mt-2 flex flex-wrap gap-2">
        <input
          id="new-api-token"
          readOnly
          value={secret}
          data-testid="new-api-token"
          onFocus={(e) => e.currentTarget.select()}
          className="min-w-0 flex-1 rounded-md border border-slate-400 bg-white px-3 py-2 font-mono text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
        />
        <Button
          type="button"
          variant="secondary"
          onClick={async () => {
            await navigator.clipboard.writeText(secret);
            setCopied(true);
          }}
        >
          Copy token
        </Button>
      </div>
      <p role="status" className="mt-1 text-sm text-amber-950 dark:text-amber-100">
        {copied ? "Copied to the clipboard." : ""}
      </p>
    </div>
  );
}

/** One token: name, permissions, dates (never the secret); `children` is its revoke control. */
export function ApiTokenRow({
  token: t,
  labels,
  children,
}: {
  token: ApiTokenItem;
  labels: Map<string, string>;
  children?: React.ReactNode;
}) {
  const { formatDateTime } = useFormat();
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 py-2 text-sm">
      <div className="min-w-0">
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 font-medium">
          <span className="break-words">{t.name}</span>
          {t.expired ? <Badge variant="warning">Expired</Badge> : null}
        </p>
        <p className="break-words text-slate-700 dark:text-slate-300">
          {t.permissions.map((k) => labels.get(k) ?? k).join(", ") || "No permissions"}
        </p>
        <p className="break-words text-slate-700 dark:text-slate-300">
          Created <time dateTime={t.createdAt}>{formatDateTime(t.createdAt)}</time> · last used{" "}
          {t.lastUsedAt ? <time dateTime={t.lastUsedAt}>{formatDateTime(t.lastUsedAt)}</time> : "never"} ·{" "}
          {t.expired ? "expired" : "expires"}{" "}
          <time dateTime={t.expiresAt}>{formatDateTime(t.expiresAt)}</time>
        </p>
      </div>
      {children}
    </li>
  );
}
