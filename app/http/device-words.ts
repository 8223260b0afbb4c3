import type { TFunction } from "i18next";

// Kept apart from user-agent.ts so pages can put parsed parts into words without shipping the
// user-agent parser to the browser.

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

/** Parts (from userAgentParts) in words: "Chrome on macOS"; "Unknown browser" when it names none. */
export function deviceWords(
  parts: { browser: string | null; os: string | null },
  t: TFunction = english,
): { browser: string; os: string; device: string } {
  const browser = parts.browser ?? t("settings:sessions.unknownBrowser");
  return {
    browser,
    os: parts.os ?? t("settings:sessions.unknownSystem"),
    device: parts.os ? t("settings:sessions.device", { browser, os: parts.os }) : browser,
  };
}
