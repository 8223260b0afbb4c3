import type { RouterContextProvider } from "react-router";
import { clientIp } from "../http/request-info.server";
import { tooManyRequestsForm } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { hit } from "../security/rate-limit.server";

export type PublicForm = "register" | "forgot-password" | "resend-verification";

/** 5 a minute per IP for each public form (RATE_LIMIT_PUBLIC_FORMS_PER_IP); null when allowed. */
export async function limitPublicForm(args: { context: Readonly<RouterContextProvider> }, form: PublicForm) {
  const result = await hit("publicFormPerIp", `${form}:${clientIp(args.context)}`);
  if (result.ok) return null;
  return tooManyRequestsForm(
    result.retryAfterSeconds,
    { ok: false as const, intent: undefined, errors: {} as Record<string, string> },
    getT(args.context),
  );
}
