import type { TFunction } from "i18next";
import { UAParser } from "ua-parser-js";

// What a user agent says in words ("Chrome on macOS"), for the sessions list, known devices and
// the new sign-in email; and its family ("Chrome|macOS"), which tells one browser on one system
// from another across versions.

/** English, for callers without a request's `t` (the words match app/locales/en/settings.json). */
const ENGLISH = {
  "settings:sessions.unknownBrowser": "Unknown browser",
  "settings:sessions.unknownSystem": "an unknown system",
  "settings:sessions.justNow": "just now",
} as Record<string, string>;
export const english = ((key: string, options?: { browser?: string; os?: string }) =>
  key === "settings:sessions.device"
    ? `${options?.browser} on ${options?.os}`
    : (ENGLISH[key] ?? key)) as TFunction;

/** The browser and operating system a user agent names; "Unknown browser" when it names none. */
export function describeUserAgent(
  userAgent: string | null,
  t: TFunction = english,
): { browser: string; os: string; device: string } {
  const parsed = new UAParser(userAgent ?? "").getResult();
  const browser = parsed.browser.name ?? t("settings:sessions.unknownBrowser");
  const osName = parsed.os.name === "Mac OS" ? "macOS" : parsed.os.name;
  const os = osName
    ? [osName, parsed.os.name === "Windows" ? parsed.os.version : null].filter(Boolean).join(" ")
    : "";
  return {
    browser,
    os: os || t("settings:sessions.unknownSystem"),
    device: os ? t("settings:sessions.device", { browser, os }) : browser,
  };
}

/** The browser and system, without versions: the same browser after an update is the same family. */
export function userAgentFamily(userAgent: string | null): string {
  const parsed = new UAParser(userAgent ?? "").getResult();
  return `${parsed.browser.name ?? "?"}|${parsed.os.name ?? "?"}`;
}
