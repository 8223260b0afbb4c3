import { audit } from "../audit/audit.server";
import { requirePermission } from "../auth/guard.server";
import { MailSendError } from "../domain-errors";
import { baseUrl } from "../env.server";
import { BodyTooLarge, readBodyText } from "../http/body.server";
import { bodyLimitFor } from "../http/body-limits";
import { apiError, payloadTooLarge, tooManyRequests } from "../http/responses";
import { sendNotificationEmail } from "../mail/senders.server";
import { testMailBody as bodySchema } from "../mail/test-mail";
import { parseClientJson } from "../security/client-keys";
import { hit } from "../security/rate-limit.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import type { Route } from "./+types/api.mail";

// Sends one test email of type notification with the current settings (spec 4.4).
export async function action(args: Route.ActionArgs) {
  const user = await requirePermission(args, "settings.manage");
  let text: string;
  try {
    text = await readBodyText(args.request, bodyLimitFor("/api/mail"));
  } catch (error) {
    if (error instanceof BodyTooLarge) return payloadTooLarge(bodyLimitFor("/api/mail"));
    text = "{"; // a body that could not be read is answered as one that is no JSON
  }
  const body = parseClientJson(text);
  if (!body.ok)
    return apiError(400, "invalid_request", { message: 'The body must be JSON: {"to": "address"}.' });
  const parsed = bodySchema.safeParse(body.value);
  if (!parsed.success) {
    return apiError(400, "invalid_request", { message: '"to" must be a valid email address.', field: "to" });
  }
  const { to } = parsed.data;
  const allowed = await hit("testMailPerUser", user.id);
  if (!allowed.ok) return tooManyRequests(allowed.retryAfterSeconds);
  const appName = await getSystemConfig("APP_NAME");
  try {
    const delivery = await sendNotificationEmail({
      to,
      subject: `Test email from ${appName}`,
      message: `This is a test email sent by ${user.name} from the Settings page. If it arrived, the mail settings work.`,
      actionUrl: `${baseUrl()}/dashboard/settings/system`,
    });
    await audit(args, {
      action: "mail.test",
      actor: user,
      target: { type: "email", id: to },
      details: { ok: true, via: delivery.via, messageId: delivery.messageId },
    });
    return Response.json({ ok: true, messageId: delivery.messageId, via: delivery.via });
  } catch (error) {
    if (!(error instanceof MailSendError)) throw error;
    await audit(args, {
      action: "mail.test",
      actor: user,
      target: { type: "email", id: to },
      details: { ok: false, message: error.providerMessage },
    });
    return apiError(502, "mail_failed", { message: error.providerMessage });
  }
}

export function loader() {
  return apiError(405, "method_not_allowed", {}, { headers: { Allow: "POST" } });
}
