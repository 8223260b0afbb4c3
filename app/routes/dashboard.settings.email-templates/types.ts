import type { emailTemplatesData } from "../../settings/email-templates-page.server";

export type EmailTemplatesData = Awaited<ReturnType<typeof emailTemplatesData>>;
