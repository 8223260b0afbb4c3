import type { MiddlewareFunction } from "react-router";
import { accessGateMiddleware } from "../auth/guard.server";
import { getSessionUser, sessionMiddleware } from "../auth/session.server";
import { catchUp } from "../events/cluster.server";
import { requestIdMiddleware } from "../http/request-info.server";
import { csrfMiddleware, securityHeadersMiddleware } from "../http/security.server";
import { unavailableMiddleware } from "../http/unavailable.server";
import { languageMiddleware } from "../i18n/i18n.server";

/** The request's language: after the session middleware, so the signed-in person's setting is known. */
export const i18nMiddleware = languageMiddleware(async (args) => (await getSessionUser(args))?.locale);

/** Other instances' changes, before anything below reads a cache (a no-op on one instance). */
const clusterCatchUpMiddleware: MiddlewareFunction<Response> = async (_args, next) => {
  await catchUp();
  return next();
};

/**
 * The root route's middleware, in order (app/root.tsx exports it). A list of its own so the event
 * stream served outside React Router (event-stream.server.ts) runs exactly the same rules.
 */
export const rootMiddleware: MiddlewareFunction<Response>[] = [
  requestIdMiddleware,
  securityHeadersMiddleware,
  // Outside every middleware that reads the database (session, language, access gate), so their
  // failures during an outage become the 503 too; inside the security headers, which the 503 gets.
  unavailableMiddleware,
  clusterCatchUpMiddleware,
  csrfMiddleware,
  sessionMiddleware,
  i18nMiddleware,
  accessGateMiddleware,
];
