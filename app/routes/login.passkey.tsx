import { passkeySignInSchema } from "../auth/passkey-schemas";
import { attemptPasskeySignIn, PASSKEY_FAILED, passkeySignInOptions } from "../auth/passkeys.server";
import { completeSignIn } from "../auth/sign-in.server";
import { readForm } from "../http/read-form.server";
import { refusal, retryMessage, tooManyRequestsInit } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { type Message, say } from "../i18n/message";
import type { Route } from "./+types/login.passkey";

// The login page's passkey endpoint (no session needed; app/auth/passkeys.server.ts does the work):
// a form without `response` asks for sign-in options, one with `response` signs in. Answers are
// JSON for the page's script; a sign-in answers with where to go and the new session's cookie.

export async function action(args: Route.ActionArgs) {
  // The page's script shows formError as it is: said here, in the request's language.
  const t = getT(args.context);
  const refused = (formError: Message) =>
    refusal(400, "invalid_request", { ok: false, formError: say(t, formError) });
  // A resource route: the Retry-After goes out with the answer itself (no `headers` export needed).
  const limited = (retryAfter: number) => {
    const { status, headers } = tooManyRequestsInit(retryAfter);
    const formError = say(t, retryMessage(retryAfter));
    return refusal(status, "rate_limited", { ok: false, formError }, { headers });
  };
  const form = await readForm(args.request);
  if (!form.has("response")) {
    const out = await passkeySignInOptions(args);
    if (!out.ok) return limited(out.retryAfter);
    return Response.json({ ok: true, options: out.options }, { headers: { "Cache-Control": "no-store" } });
  }
  const parsed = passkeySignInSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) return refused(PASSKEY_FAILED);
  const outcome = await attemptPasskeySignIn(args, parsed.data.response);
  if (!outcome.ok && outcome.status === "rate_limited") return limited(outcome.retryAfter);
  if (!outcome.ok) return refused(outcome.message);
  const signedIn = await completeSignIn(args, outcome.userId, {
    method: "passkey",
    factors: 2,
    redirectTo: parsed.data.redirectTo,
  });
  // The script navigates itself: the redirect becomes its address, the cookies stay as they are.
  const location = signedIn.headers.get("Location");
  if (!location || signedIn.status < 300 || signedIn.status >= 400) return signedIn;
  const headers = new Headers({ "Cache-Control": "no-store" });
  for (const cookie of signedIn.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  return Response.json({ ok: true, redirectTo: location }, { headers });
}
