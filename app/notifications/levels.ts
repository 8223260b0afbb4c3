// Shared by the compose form, the bell and the server schema.
export const NOTICE_LEVELS = ["info", "success", "warning", "critical"] as const;
export type NoticeLevel = (typeof NOTICE_LEVELS)[number];
