import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  WebAuthnAbortService,
} from "@simplewebauthn/browser";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { translateMessage } from "../../i18n/message";
import { Button } from "../ui/button";

// "Sign in with a passkey" on the login page, and the same passkey offered in the email field's
// autofill where the browser supports it (conditional UI: the field's autocomplete ends in
// "webauthn"). /login/passkey gives the options and checks the answer (app/routes/login.passkey.tsx).

const ENDPOINT = "/login/passkey";
// English like every refusal the server sends; shown through translateMessage (messages.json).
const FAILED = "That passkey could not be used to sign in.";
const UNAVAILABLE = "Passkey sign-in is not available right now.";
const CANCELLED = "No passkey was used (cancelled or timed out).";

type Reply = {
  ok?: boolean;
  options?: PublicKeyCredentialRequestOptionsJSON;
  redirectTo?: string;
  formError?: string;
};

async function post(fields: Record<string, string>): Promise<{ ok: boolean; body: Reply }> {
  const res = await fetch(ENDPOINT, { method: "POST", body: new URLSearchParams(fields) });
  const body = ((await res.json().catch(() => null)) ?? {}) as Reply;
  return { ok: res.ok, body };
}

async function signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { ok, body } = await post({});
  if (!ok || !body.options) throw new Error(body.formError ?? UNAVAILABLE);
  return body.options;
}

/** Sends the browser's answer; on success the page goes where the server says. */
async function finish(response: unknown, redirectTo: string): Promise<void> {
  const { ok, body } = await post({ response: JSON.stringify(response), redirectTo });
  if (!ok || !body.redirectTo) throw new Error(body.formError ?? FAILED);
  window.location.assign(body.redirectTo);
}

function problemOf(error: unknown): string {
  if (error instanceof Error && error.name === "NotAllowedError") return CANCELLED;
  if (error instanceof Error && error.name === "AbortError") return "";
  return error instanceof Error && error.message ? error.message : FAILED;
}

export function PasskeySignIn({ redirectTo }: { redirectTo: string }) {
  const { t } = useTranslation();
  const [supported, setSupported] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Conditional UI: a quiet request the email field's autofill can answer; the button aborts it.
  useEffect(() => {
    setSupported(browserSupportsWebAuthn());
    let live = true;
    (async () => {
      if (!(await browserSupportsWebAuthnAutofill())) return;
      const optionsJSON = await signInOptions();
      if (!live) return;
      const response = await startAuthentication({ optionsJSON, useBrowserAutofill: true });
      if (!live) return;
      setBusy(true);
      await finish(response, redirectTo);
    })().catch((e) => {
      if (!live) return;
      setBusy(false);
      // A conditional request ends quietly when the button takes over; other failures are shown.
      if (!(e instanceof Error && (e.name === "AbortError" || e.name === "NotAllowedError")))
        setError(problemOf(e));
    });
    return () => {
      live = false;
      WebAuthnAbortService.cancelCeremony();
    };
  }, [redirectTo]);

  async function signIn() {
    setError(null);
    setBusy(true);
    try {
      const optionsJSON = await signInOptions();
      const response = await startAuthentication({ optionsJSON });
      await finish(response, redirectTo);
    } catch (e) {
      setBusy(false);
      setError(problemOf(e) || null);
    }
  }

  if (!supported) return null;
  return (
    <div className="mt-3 flex flex-col gap-2">
      <Button type="button" variant="secondary" pending={busy} onClick={signIn}>
        {t("auth:passkey.signIn")}
      </Button>
      {error ? (
        <p role="alert" className="text-sm text-destructive">
          {translateMessage(t, error)}
        </p>
      ) : null}
    </div>
  );
}
