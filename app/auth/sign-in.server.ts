import { type RouterContextProvider, redirect } from "react-router";
import { safeRedirectPath } from "../http/responses";
import { signIn } from "../metrics/metrics.server";
import { startSession } from "./session.server";
import { secondFactorSatisfied } from "./two-factor.server";
import { askForSecondFactor } from "./two-factor-sign-in.server";

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

/** How the person proved who they are; a passkey counts as two factors. */
export type SignInMethod = "password" | "oidc" | "passkey" | "invite";

export type SignInProof = {
  method: SignInMethod;
  /** 1 for something known (a password, an identity provider), 2 for a passkey. */
  factors: 1 | 2;
  redirectTo?: FormDataEntryValue | string | null;
};

/**
 * The one place every sign-in method ends: password, passkey, single sign-on and an accepted
 * invitation all call this once the first proof is checked, and it answers with the redirect
 * that starts the session. Later factors (two-factor codes) and sign-in policies hook in here,
 * so no method can skip them.
 */
export async function completeSignIn(args: Args, userId: string, proof: SignInProof): Promise<Response> {
  // One factor so far and a second one enrolled: no session until /login/two-factor has the code.
  if (!(await secondFactorSatisfied(userId, proof.factors)))
    return askForSecondFactor(userId, proof.method, proof.redirectTo);
  const headers = new Headers();
  for (const cookie of await startSession(userId, args)) headers.append("Set-Cookie", cookie);
  signIn(proof.method, true);
  return redirect(safeRedirectPath(proof.redirectTo ?? null), { headers });
}
