import { type RouterContextProvider, redirect } from "react-router";
import { rolesRefusingUser } from "../access/networks.server";
import { audit } from "../audit/audit.server";
import { db } from "../db.server";
import { clientIp } from "../http/request-info.server";
import { safeRedirectPath } from "../http/responses";
import { signIn } from "../metrics/metrics.server";
import { networkNotAllowed } from "./guard.server";
import { startSession } from "./session.server";
import { noteSignIn } from "./sign-in-alerts.server";
import { secondFactorSatisfied } from "./two-factor.server";
import { askForSecondFactor } from "./two-factor-sign-in.server";

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

/** A passkey counts as two factors. */
type SignInMethod = "password" | "oidc" | "passkey" | "invite";

export type SignInProof = {
  method: SignInMethod;
  factors: 1 | 2;
  redirectTo?: FormDataEntryValue | string | null;
};

/** The one place every sign-in method ends, so no method can skip later factors or policies. */
export async function completeSignIn(args: Args, userId: string, proof: SignInProof): Promise<Response> {
  // After the proof (no oracle for who has a rule), before a second factor is asked for in vain.
  const outside = await rolesRefusingUser(userId, clientIp(args.context));
  if (outside.length > 0) {
    const who = await db().selectFrom("user").select("email").where("id", "=", userId).executeTakeFirst();
    await audit(args, {
      action: "auth.login.network_refused",
      actor: { id: userId, email: who?.email ?? "" },
      target: { type: "user", id: userId },
      details: { method: proof.method, roles: outside.map((r) => r.name) },
    });
    signIn(proof.method, false);
    networkNotAllowed(args, outside);
  }
  if (!(await secondFactorSatisfied(userId, proof.factors)))
    return askForSecondFactor(userId, proof.method, proof.redirectTo);
  const headers = new Headers();
  for (const cookie of await startSession(userId, args)) headers.append("Set-Cookie", cookie);
  for (const cookie of await noteSignIn(userId, args)) headers.append("Set-Cookie", cookie);
  signIn(proof.method, true);
  return redirect(safeRedirectPath(proof.redirectTo ?? null), { headers });
}

/** `clearCookie` clears the flow's cookie; `factors` is 2 when the provider's proof came with a second factor. */
export async function finishOidcSignIn(
  args: Args,
  user: { id: string; email: string },
  sso: { provider: string; factors: 1 | 2; redirectTo: string; clearCookie: string },
): Promise<Response> {
  await audit(args, {
    action: "auth.login.succeeded",
    actor: { id: user.id, email: user.email },
    target: { type: "user", id: user.id },
    details: { method: "oidc", provider: sso.provider },
  });
  const signedIn = await completeSignIn(args, user.id, {
    method: "oidc",
    factors: sso.factors,
    redirectTo: sso.redirectTo,
  });
  const headers = new Headers(signedIn.headers);
  headers.append("Set-Cookie", sso.clearCookie);
  return new Response(signedIn.body, { status: signedIn.status, headers });
}
