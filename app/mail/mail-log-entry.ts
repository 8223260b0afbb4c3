// What the Settings page shows of a mail_log row (shared by the server query and the component).
export type MailLogEntry = {
  id: string;
  to: string;
  type: string;
  subject: string;
  status: "sent" | "failed" | "outbox";
  providerMessageId: string | null;
  error: string | null;
  outboxLink: string | null;
  /** The customised words' version the mail used; null: the product's. */
  templateVersion: number | null;
  createdAt: string;
};
