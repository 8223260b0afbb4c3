import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  WebAuthnAbortService,
} from "@simplewebauthn/browser";
import { useEffect, useState } from "react";
import { Button } from "../../components/ui/button";
import { type MessageKey, say } from "../../i18n/message";
import { useTranslation } from "../../i18n/use-translation";

// "Sign in with a passkey" on the login page, and the same passkey offered in the email field's
// autofill where the browser supports it (conditional UI: the field's autocomplete ends in
// "webauthn"). /login/passkey gives the options and checks the answer (app/routes/login.passkey.tsx).

const ENDPOINT = "/login/passkey";
// The script's own refusals are message keys, said in the page's language when shown; the
// server's (formError) arrive said in it already (app/routes/login.passkey.tsx).
const FAILED: MessageKey = "passkeys.signInFailed";
const UNAVAILABLE: MessageKey = "passkeys.signInUnavailable";
const CANCELLED: MessageKey = "passkeys.signInCancelled";

/** A refusal to show: words said already (the server's, the browser's), or one of the keys above. */
type Problem = { said: string } | { key: MessageKey };

class SignInProblem extends Error {
  constructor(readonly problem: Problem) {
    super("said" in problem ? problem.said : problem.key);
  }
}

/** The server's refusal, else the fallback key. */
const refusal = (formError: string | undefined, fallback: MessageKey) =>
  new SignInProblem(formError ? { said: formError } : { key: fallback });

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
  if (!ok || !body.options) throw refusal(body.formError, UNAVAILABLE);
  return body.options;
}

/** Sends the browser's answer; on success the page goes where the server says. */
async function finish(response: unknown, redirectTo: string): Promise<void> {
  const { ok, body } = await post({ response: JSON.stringify(response), redirectTo });
  if (!ok || !body.redirectTo) throw refusal(body.formError, FAILED);
  window.location.assign(body.redirectTo);
}

function problemOf(error: unknown): Problem | null {
  if (error instanceof SignInProblem) return error.problem;
  if (error instanceof Error && error.name === "NotAllowedError") return { key: CANCELLED };
  if (error instanceof Error && error.name === "AbortError") return null;
  return error instanceof Error && error.message ? { said: error.message } : { key: FAILED };
}

export function PasskeySignIn({ redirectTo }: { redirectTo: string }) {
  const { t } = useTranslation();
  const [supported, setSupported] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem | null>(null);

  // Conditional UI: a quiet request the email field's autofill can answer; the button aborts it.
  useEffect(() => {
    setSupported(browserSupportsWebAuthn());
    let live = true;
    let picked = false;
    (async () => {
      if (!(await browserSupportsWebAuthnAutofill())) return;
      const optionsJSON = await signInOptions();
      if (!live) return;
      const response = await startAuthentication({ optionsJSON, useBrowserAutofill: true });
      if (!live) return;
      picked = true;
      setBusy(true);
      await finish(response, redirectTo);
    })().catch((e) => {
      if (!live) return;
      setBusy(false);
      // Until the person picks a passkey from the autofill, this request is the page's, not theirs:
      // a browser that cannot hold it open (Chromium's headless shell refuses an empty
      // allowCredentials) must not greet them with an error. The button still works.
      if (picked) setError(problemOf(e));
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
      setError(problemOf(e));
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
          {"said" in error ? error.said : say(t, error.key)}
        </p>
      ) : null}
    </div>
  );
}
