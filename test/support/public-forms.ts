import { settleDeliveries } from "../../app/mail/deliveries.server";
import { args, context, request, run } from "../helpers";
import { formRequest } from "./forms";

// The public forms (register, sign-in, forgot and reset password, invitations) as their tests post
// them (app/auth/account-flows.test.ts, password-reset.test.ts): each from an address of its own,
// so the per-IP limits of one case never touch the next.

let ip = 0;
const nextIp = () => `198.51.100.${++ip}`;

/** Posts `values` to the route `action` of `path`; waits for the mail it sends after answering. */
export async function postPublicForm(
  path: string,
  action: (a: never) => unknown,
  values: Record<string, string>,
  opts: { ip?: string; cookie?: string } = {},
) {
  const req = formRequest(path, values, { cookie: opts.cookie });
  const out = await run(() => action(args(req, {}, context(opts.ip ?? nextIp()))));
  // Public forms mail after answering; the assertions are about what was sent.
  await settleDeliveries();
  return out;
}

export function getPage(path: string, loader: (a: never) => unknown) {
  return run(() => loader(args(request(path))));
}

/** A link's path and query, without the origin the email puts before it. */
export const pathOf = (url: string) => url.replace(/^https?:\/\/[^/]+/, "");
