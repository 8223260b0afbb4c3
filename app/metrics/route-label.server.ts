import type { RouterContextProvider } from "react-router";
import { requestInfoContext } from "../http/request-info.server";
import { routeLabel } from "./metrics.server";

/**
 * Notes the matched route's pattern on the request's info, where server.ts's pipeline reads it
 * for the request's duration histogram when the answer is sent. Called from the first root
 * middleware (securityHeadersMiddleware) rather than being a middleware of its own: each layer of
 * React Router's middleware chain costs closures, promises and awaits per request, this a map
 * look-up. A request no route matches never reaches middleware and keeps the pipeline's label.
 */
export function noteRoute(args: { pattern: string; context: Readonly<RouterContextProvider> }) {
  const info = args.context.get(requestInfoContext);
  if (info.route !== undefined) info.route = routeLabel(args.pattern);
}
