import type { MiddlewareFunction } from "react-router";
import { requestInfoContext } from "../http/request-info.server";
import { routeLabel } from "./metrics.server";

/**
 * Root middleware, first in line: notes the matched route's pattern on the request's info, where
 * server.ts's pipeline reads it for the request's duration histogram when the answer is sent.
 * Not async and returning next()'s own promise: no promise or object of its own per request.
 * A request no route matches never reaches middleware and keeps the pipeline's fixed label.
 */
export const routeLabelMiddleware: MiddlewareFunction<Response> = (args, next) => {
  const info = args.context.get(requestInfoContext);
  if (info.route !== undefined) info.route = routeLabel(args.pattern);
  return next();
};
