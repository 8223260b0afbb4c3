import { Link, useFetcher } from "react-router";
import { twoFactorCodeSchema, twoFactorReauthSchema } from "../../auth/two-factor-schemas";
import { TextField } from "../../components/forms/fields";
import { alertVariants } from "../../components/ui/alert";
import { Button, buttonVariants } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { useTranslation } from "../../i18n/use-translation";
import { ReauthFields, type ReauthMethods } from "../dashboard.settings/reauth-fields";
import { type SettingsFetcher, useSettingsForm } from "../dashboard.settings/use-settings-form";
import { RecoveryCodes } from "./recovery-codes";
import type { action } from "./route";

export type TwoFactorData = {
  view:
    | { state: "off" }
    | { state: "pending"; secret: string; qrCode: string }
    /** Another session of this account started an enrolment: its secret is never sent here. */
    | { state: "elsewhere" }
    | { state: "on"; recoveryCodesLeft: number };
  due: boolean;
  /** How this account re-authenticates (no password: single sign-on; code: two-factor is on). */
  reauth: ReauthMethods;
  policy: { roles: { id: string; name: string; label: string }[]; required: string[] } | null;
};

const codesOf = (data: SettingsFetcher<typeof action>["data"]) =>
  data && "recoveryCodes" in data ? data.recoveryCodes : null;

/** Settings' two-factor section: set up with an app, turn off, new recovery codes. */
export function TwoFactorSection({
  twoFactor,
  appName,
  email,
  continueTo = null,
}: {
  twoFactor: TwoFactorData;
  /** The product's name and the account, for the recovery codes' file and print. */
  appName: string;
  email: string;
  /** Where an enrolment the gate demanded goes on to, once the codes are kept. */
  continueTo?: string | null;
}) {
  const { t } = useTranslation();
  const start = useSettingsForm("two-factor-start", twoFactorReauthSchema, {
    fetcher: useFetcher<typeof action>(),
  });
  const confirm = useSettingsForm("two-factor-confirm", twoFactorCodeSchema, {
    fetcher: useFetcher<typeof action>(),
  });
  const regenerate = useSettingsForm("two-factor-recovery-codes", twoFactorReauthSchema, {
    fetcher: useFetcher<typeof action>(),
  });
  const disable = useSettingsForm("two-factor-disable", twoFactorReauthSchema, {
    fetcher: useFetcher<typeof action>(),
  });
  const { view } = twoFactor;
  const codes = codesOf(confirm.fetcher.data) ?? codesOf(regenerate.fetcher.data);
  return (
    <>
      <Card title={t("settings:twoFactor.title")}>
        <ViewingAsLock
          lock={{
            page: "/dashboard/settings/security",
            intents: ["two-factor-start", "two-factor-confirm", "two-factor-recovery-codes"],
          }}
        >
          <div className="flex flex-col gap-4">
            {twoFactor.due ? (
              <p role="alert" className={alertVariants({ variant: "warning" })}>
                {t("settings:twoFactor.due")}
              </p>
            ) : null}
            {codes ? <RecoveryCodes codes={codes} appName={appName} email={email} /> : null}
            {codes && continueTo && codesOf(confirm.fetcher.data) ? (
              <Link to={continueTo} className={buttonVariants({ className: "self-start" })}>
                {t("settings:twoFactor.continue")}
              </Link>
            ) : null}
            {view.state === "off" || view.state === "elsewhere" ? (
              <start.fetcher.Form method="post" className="flex flex-col gap-3" {...start.formProps}>
                <input type="hidden" name="intent" value="two-factor-start" />
                {view.state === "elsewhere" ? (
                  <p className="text-sm" data-testid="two-factor-elsewhere">
                    {t("settings:twoFactor.elsewhere")}
                  </p>
                ) : null}
                <p className="text-sm">{t("settings:twoFactor.offIntro")}</p>
                <ReauthFields reauth={twoFactor.reauth} fields={start.fields} />
                {start.errors}
                {start.status}
                <div>
                  <Button pending={start.pending}>{t("settings:twoFactor.setUp")}</Button>
                </div>
              </start.fetcher.Form>
            ) : null}
            {view.state === "pending" ? (
              <confirm.fetcher.Form method="post" className="flex flex-col gap-3" {...confirm.formProps}>
                <input type="hidden" name="intent" value="two-factor-confirm" />
                <p className="text-sm">{t("settings:twoFactor.scan")}</p>
                <img src={view.qrCode} alt={t("settings:twoFactor.qrAlt")} width={200} height={200} />
                <p className="text-sm">
                  {t("settings:twoFactor.key")}{" "}
                  <code className="break-all font-mono" data-testid="two-factor-secret">
                    {view.secret}
                  </code>
                </p>
                <TextField
                  meta={confirm.fields.code}
                  label={t("settings:twoFactor.code")}
                  inputMode="numeric"
                  autoComplete="one-time-code"
                />
                {confirm.errors}
                {confirm.status}
                <div>
                  <Button pending={confirm.pending}>{t("settings:twoFactor.turnOn")}</Button>
                </div>
              </confirm.fetcher.Form>
            ) : null}
            {view.state === "on" ? (
              <>
                <p className="text-sm">
                  {t("settings:twoFactor.onStatus", { count: view.recoveryCodesLeft })}
                </p>
                {/* The confirmation stays once the page's data says "on" (the pending form is gone by then). */}
                {codes ? null : start.status}
                {confirm.status}
                <regenerate.fetcher.Form
                  method="post"
                  className="flex flex-col gap-3"
                  {...regenerate.formProps}
                >
                  <input type="hidden" name="intent" value="two-factor-recovery-codes" />
                  <h3 className="text-sm font-semibold">{t("settings:twoFactor.newCodesTitle")}</h3>
                  <ReauthFields reauth={twoFactor.reauth} fields={regenerate.fields} />
                  {regenerate.errors}
                  {regenerate.status}
                  <div>
                    <Button variant="secondary" pending={regenerate.pending}>
                      {t("settings:twoFactor.makeNewCodes")}
                    </Button>
                  </div>
                </regenerate.fetcher.Form>
              </>
            ) : null}
            {view.state === "off" ? disable.status : null}
          </div>
        </ViewingAsLock>
      </Card>
      {/* Apart from the codes, in the danger style: turning off is never one slip of the mouse away. */}
      {view.state === "on" ? (
        <Card title={t("settings:twoFactor.turnOffTitle")} className="border-destructive/50">
          <ViewingAsLock lock={{ page: "/dashboard/settings/security", intents: ["two-factor-disable"] }}>
            <disable.fetcher.Form method="post" className="flex flex-col gap-3" {...disable.formProps}>
              <input type="hidden" name="intent" value="two-factor-disable" />
              <p className="text-sm">{t("settings:twoFactor.turnOffIntro")}</p>
              <ReauthFields reauth={twoFactor.reauth} fields={disable.fields} />
              {disable.errors}
              <div>
                <Button variant="destructive" pending={disable.pending}>
                  {t("settings:twoFactor.turnOff")}
                </Button>
              </div>
            </disable.fetcher.Form>
          </ViewingAsLock>
        </Card>
      ) : null}
    </>
  );
}
