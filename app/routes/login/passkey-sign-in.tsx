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

const ENDPOINT = "/login/passkey";
// The script's own refusals are message keys; the server's arrive already said.
const FAILED: MessageKey = "passkeys.signInFailed";
const UNAVAILABLE: MessageKey = "passkeys.signInUnavailable";
const CANCELLED: MessageKey = "passkeys.signInCancelled";

type Problem = { said: string } | { key: MessageKey };

class SignInProblem extends Error {
  constructor(readonly problem: Problem) {
    super("said" in problem ? problem.said : problem.key);
  }
}

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
      // Until a passkey is picked this request is the page's, so a browser that cannot hold it open shows no error.
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
