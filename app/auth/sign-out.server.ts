import type { RouterContextProvider } from "react-router";
import { audit } from "../audit/audit.server";
import { endImpersonation } from "./impersonation-state.server";
import { endSession, getSessionUser } from "./session.server";
import { abandonEnrolment } from "./two-factor.server";

/**
 * POST /logout: ends the session the request carries (and, with it, the event streams it opened:
 * session-end.server.ts), and returns the Set-Cookie that clears the cookie. While a super admin views as someone, the view ends first
 * (impersonation.end, "signed out") and the sign-out is the super admin's own: the person viewed
 * as keeps their sessions and their streams. A two-factor enrolment this session started is abandoned.
 */
export async function signOut(origin: { request: Request; context: Readonly<RouterContextProvider> }) {
  const user = await getSessionUser(origin);
  const viewer = user?.impersonator;
  if (user && viewer)
    await endImpersonation(
      user.sessionId,
      { userId: viewer.id, email: viewer.email },
      user.id,
      "signed out",
      origin,
    );
  if (user && !viewer) await abandonEnrolment(user.id, user.sessionId);
  const cookie = await endSession(origin.request);
  if (user) {
    const actor = viewer ? { id: viewer.id, email: viewer.email } : { id: user.id, email: user.email };
    await audit(origin, {
      action: "auth.logout",
      actor,
      impersonator: null,
      target: { type: "user", id: actor.id },
    });
  }
  return cookie;
}
