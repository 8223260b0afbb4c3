import { browserSupportsWebAuthn, startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import type { TFunction } from "i18next";
import { useEffect, useId, useRef, useState } from "react";
import { Trans } from "react-i18next";
import { useFetcher } from "react-router";
import type { PasskeyAvailability } from "../../auth/passkey-availability";
import { type PasskeyView, passkeyNameField } from "../../auth/passkey-schemas";
import { useFormat } from "../../components/format";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Card, EmptyState } from "../../components/ui/card";
import { Input, labelClass } from "../../components/ui/field";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { say, sayIssue } from "../../i18n/message";
import { useTranslation } from "../../i18n/use-translation";
import type { ReauthMethods } from "../dashboard.settings/reauth-fields";
import { SectionStatus, type SettingsFetcher } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

// Settings → Passkeys: add one (the server's options, the browser's ceremony, the server checks
// the answer), rename or remove the account's own. The intents live in app/settings/account-settings.server.ts.

type Answer = SettingsFetcher<typeof action>["data"];

/** What went wrong, in words: the server's answer (said in the page's language) or a fallback. */
function problemOf(t: TFunction, answer: Answer): string | null {
  if (!answer || answer.ok) return null;
  return answer.formError ?? Object.values(answer.errors ?? {})[0] ?? say(t, "passkeys.failed");
}

function browserProblem(t: TFunction, error: unknown): string {
  if (error instanceof WebAuthnError && error.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED")
    return say(t, "passkeys.deviceHasOne");
  if (error instanceof Error && error.name === "NotAllowedError") return say(t, "passkeys.createCancelled");
  return say(t, "passkeys.createFailed");
}

export function PasskeysSection({
  passkeys,
  availability,
  reauth,
}: {
  passkeys: PasskeyView[];
  /** Decided by the server for this page. */
  availability: PasskeyAvailability;
  /** How the account re-authenticates before a challenge is issued (assertReauthenticated). */
  reauth: ReauthMethods;
}) {
  const { t } = useTranslation();
  const options = useFetcher<typeof action>();
  const add = useFetcher<typeof action>();
  const change = useFetcher<typeof action>();
  const nameId = useId();
  const passwordId = useId();
  const codeId = useId();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);
  const [browserError, setBrowserError] = useState<string | null>(null);
  // Unknown until the page runs here: without JavaScript there is no ceremony, so no form.
  const [supported, setSupported] = useState<boolean | null>(null);
  const [ceremony, setCeremony] = useState(false);
  const handled = useRef<unknown>(null);
  const pendingName = useRef("Passkey");

  useEffect(() => setSupported(browserSupportsWebAuthn()), []);

  // The server's options arrive: run the browser's ceremony once, then send its answer.
  useEffect(() => {
    const data = options.data;
    if (!data?.ok || !("options" in data) || handled.current === data) return;
    handled.current = data;
    setCeremony(true);
    startRegistration({ optionsJSON: data.options })
      .then((response) =>
        add.submit(
          { intent: "passkey-add", name: pendingName.current, response: JSON.stringify(response) },
          { method: "post" },
        ),
      )
      .catch((error) => setBrowserError(browserProblem(t, error)))
      .finally(() => setCeremony(false));
  }, [options.data, add, t]);

  useEffect(() => {
    if (add.data?.ok) setName("");
  }, [add.data]);

  // A refused password or code is the field's error (inline, as in the two-factor forms), not the form's.
  useEffect(() => {
    const errors = options.data && !options.data.ok ? options.data.errors : undefined;
    if (errors?.currentPassword) setPasswordError(errors.currentPassword);
    if (errors?.reauthCode) setCodeError(errors.reauthCode);
    // Asked once per challenge: clear them whatever the server answered.
    if (options.data) {
      setPassword("");
      setCode("");
    }
  }, [options.data]);

  function start(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBrowserError(null);
    const typed = name.trim();
    const parsed = typed ? passkeyNameField.safeParse(typed) : { success: true as const, data: "Passkey" };
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      setNameError(issue ? sayIssue(t, issue) : say(t, "passkeys.checkName"));
      return;
    }
    setNameError(null);
    if (reauth.password && !reauth.code && !password) {
      setPasswordError(say(t, "auth.enterCurrentPassword"));
      return;
    }
    setPasswordError(null);
    setCodeError(null);
    pendingName.current = parsed.data;
    options.submit(
      { intent: "passkey-options", currentPassword: password, reauthCode: code },
      { method: "post" },
    );
  }

  const busy = options.state !== "idle" || add.state !== "idle" || ceremony;
  const fieldRefused = options.data?.errors?.currentPassword || options.data?.errors?.reauthCode;
  const optionsProblem = fieldRefused ? null : problemOf(t, options.data);
  const problem = browserError ?? (add.state === "idle" ? problemOf(t, add.data) : null) ?? optionsProblem;
  const changeAnswer = change.data?.intent?.startsWith("passkey-") ? change.data : undefined;

  return (
    <Card title={t("settings:passkeys.title")}>
      <ViewingAsLock
        lock={{
          page: "/dashboard/settings/security",
          intents: ["passkey-options", "passkey-add", "passkey-rename", "passkey-remove"],
        }}
      >
        <p className="mb-3 text-sm text-muted-foreground">{t("settings:passkeys.intro")}</p>
        {passkeys.length ? (
          <ul className="divide-y" data-testid="passkeys">
            {passkeys.map((p) => (
              <PasskeyItem key={p.id} passkey={p} fetcher={change} />
            ))}
          </ul>
        ) : (
          <EmptyState>{t("settings:passkeys.none")}</EmptyState>
        )}
        <SectionStatus answer={changeAnswer} />
        {changeAnswer && !changeAnswer.ok ? (
          <p role="alert" className="text-sm text-destructive">
            {problemOf(t, changeAnswer)}
          </p>
        ) : null}
        {!availability.available ? (
          <p className="mt-4 text-sm text-muted-foreground" data-testid="passkeys-unavailable">
            {availability.reason === "ip-address"
              ? t("settings:passkeys.unavailableIp")
              : t("settings:passkeys.unavailableOrigin", { origin: availability.origin })}
          </p>
        ) : supported ? (
          <form onSubmit={start} className="mt-4 flex flex-col gap-3" noValidate>
            <div>
              <label htmlFor={nameId} className={labelClass}>
                {t("settings:passkeys.nameLabel")}
              </label>
              <Input
                id={nameId}
                name="name"
                value={name}
                onChange={(event) => setName(event.target.value)}
                placeholder="Passkey"
                maxLength={60}
                autoComplete="off"
                aria-invalid={nameError ? true : undefined}
                aria-describedby={nameError ? `${nameId}-error` : undefined}
              />
              {nameError ? (
                <p id={`${nameId}-error`} className="mt-1 text-sm text-destructive">
                  {nameError}
                </p>
              ) : null}
            </div>
            {reauth.password ? (
              <div>
                <label htmlFor={passwordId} className={labelClass}>
                  {t("settings:currentPassword")}
                </label>
                <Input
                  id={passwordId}
                  name="currentPassword"
                  type="password"
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                  autoComplete="current-password"
                  aria-invalid={passwordError ? true : undefined}
                  aria-describedby={passwordError ? `${passwordId}-error` : undefined}
                />
                {passwordError ? (
                  <p id={`${passwordId}-error`} className="mt-1 text-sm text-destructive">
                    {passwordError}
                  </p>
                ) : null}
              </div>
            ) : null}
            {reauth.code ? (
              <div>
                <label htmlFor={codeId} className={labelClass}>
                  {reauth.password ? t("settings:reauthCode") : t("settings:reauthCodeOnly")}
                </label>
                <Input
                  id={codeId}
                  name="reauthCode"
                  value={code}
                  onChange={(event) => setCode(event.target.value)}
                  autoComplete="one-time-code"
                  maxLength={20}
                  aria-invalid={codeError ? true : undefined}
                  aria-describedby={codeError ? `${codeId}-help ${codeId}-error` : `${codeId}-help`}
                />
                <p id={`${codeId}-help`} className="mt-1 text-sm text-muted-foreground">
                  {t("settings:reauthCodeHelp")}
                </p>
                {codeError ? (
                  <p id={`${codeId}-error`} className="mt-1 text-sm text-destructive">
                    {codeError}
                  </p>
                ) : null}
              </div>
            ) : null}
            {!reauth.password && !reauth.code ? (
              <p className="text-sm">{t("settings:reauthFreshSignIn")}</p>
            ) : null}
            {problem ? (
              <p role="alert" className="text-sm text-destructive">
                {problem}
              </p>
            ) : null}
            <SectionStatus
              answer={add.data?.intent === "passkey-add" && add.state === "idle" ? add.data : undefined}
            />
            <div>
              <Button pending={busy}>{t("settings:passkeys.add")}</Button>
            </div>
          </form>
        ) : (
          <p className="mt-4 text-sm text-muted-foreground">{t("settings:passkeys.unsupported")}</p>
        )}
      </ViewingAsLock>
    </Card>
  );
}

function PasskeyItem({
  passkey: p,
  fetcher,
}: {
  passkey: PasskeyView;
  fetcher: SettingsFetcher<typeof action>;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const [renaming, setRenaming] = useState(false);
  const inputId = useId();
  const removing = fetcher.state !== "idle" && fetcher.formData?.get("id") === p.id;
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok && fetcher.data.intent === "passkey-rename")
      setRenaming(false);
  }, [fetcher.state, fetcher.data]);
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 py-2 text-sm">
      <div className="min-w-0">
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 font-medium">
          <span className="break-words">{p.name}</span>
          {p.backedUp ? <Badge>{t("settings:passkeys.synced")}</Badge> : null}
        </p>
        <p className="break-words text-muted-foreground">
          <Trans
            i18nKey="settings:passkeys.added_at"
            values={{ date: formatDateTime(p.createdAt) }}
            components={{ time: <time dateTime={p.createdAt} /> }}
          />{" "}
          ·{" "}
          {p.lastUsedAt ? (
            <Trans
              i18nKey="settings:passkeys.lastUsed"
              values={{ date: formatDateTime(p.lastUsedAt) }}
              components={{ time: <time dateTime={p.lastUsedAt} /> }}
            />
          ) : (
            t("settings:passkeys.neverUsed")
          )}
        </p>
        {renaming ? (
          <fetcher.Form method="post" className="mt-2 flex flex-wrap items-end gap-2">
            <input type="hidden" name="intent" value="passkey-rename" />
            <input type="hidden" name="id" value={p.id} />
            <div>
              <label htmlFor={inputId} className={labelClass}>
                {t("settings:passkeys.renameLabel", { name: p.name })}
              </label>
              <Input
                id={inputId}
                name="name"
                defaultValue={p.name}
                required
                maxLength={60}
                autoComplete="off"
                autoFocus
              />
            </div>
            <Button pending={fetcher.state !== "idle"}>{t("settings:save")}</Button>
            <Button type="button" variant="secondary" onClick={() => setRenaming(false)}>
              {t("settings:cancel")}
            </Button>
          </fetcher.Form>
        ) : null}
      </div>
      <div className="flex gap-2">
        {renaming ? null : (
          <Button type="button" variant="secondary" onClick={() => setRenaming(true)}>
            {t("settings:passkeys.rename")}
            <span className="sr-only"> {p.name}</span>
          </Button>
        )}
        <ConfirmDialog
          trigger={
            <Button type="button" variant="secondary" pending={removing}>
              {t("settings:passkeys.remove")}
              <span className="sr-only"> {p.name}</span>
            </Button>
          }
          title={t("settings:passkeys.removeTitle", { name: p.name })}
          description={t("settings:passkeys.removeDescription")}
          actionLabel={t("settings:passkeys.removeAction")}
          onConfirm={() => fetcher.submit({ intent: "passkey-remove", id: p.id }, { method: "post" })}
        />
      </div>
    </li>
  );
}
