import { type SettingsSection, settingsPath } from "../access/settings-pages";
import { baseUrl } from "../env.server";

// Every link an email carries points at BASE_URL, the service's public address (spec 4.7).

export const verifyEmailUrl = (token: string) =>
  `${baseUrl()}/api/auth/verify-email?token=${encodeURIComponent(token)}`;
export const resetPasswordUrl = (token: string) =>
  `${baseUrl()}/reset-password?token=${encodeURIComponent(token)}`;
export const acceptInviteUrl = (token: string) =>
  `${baseUrl()}/accept-invite?token=${encodeURIComponent(token)}`;
export const forgotPasswordUrl = () => `${baseUrl()}/forgot-password`;
export const settingsUrl = (section: SettingsSection, anchor?: string) =>
  `${baseUrl()}${settingsPath(section)}${anchor ? `#${anchor}` : ""}`;
