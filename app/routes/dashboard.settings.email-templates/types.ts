import type { emailTemplatesData } from "../../settings/email-templates-page.server";

export type EmailTemplatesData = Awaited<ReturnType<typeof emailTemplatesData>>;

/** What the page's action answers an intent with (save, preview, test, reset, restore). */
export type TemplateAnswer = {
  ok: boolean;
  intent?: string;
  message?: string;
  errors?: Record<string, string>;
  formError?: string | null;
  preview?: { subject: string; html: string; text: string };
};
