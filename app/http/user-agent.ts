import type { TFunction } from "i18next";
import { UAParser } from "ua-parser-js";
import { deviceWords, english } from "./device-words";

// What a user agent says in words ("Chrome on macOS"), for the sessions list, known devices and
// the new sign-in email; and its family ("Chrome|macOS"), which tells one browser on one system
// from another across versions.

/** The browser and system a user agent names, without words for what it does not name. */
export function userAgentParts(userAgent: string | null): { browser: string | null; os: string | null } {
  const parsed = new UAParser(userAgent ?? "").getResult();
  const osName = parsed.os.name === "Mac OS" ? "macOS" : parsed.os.name;
  const os = osName
    ? [osName, parsed.os.name === "Windows" ? parsed.os.version : null].filter(Boolean).join(" ")
    : "";
  return { browser: parsed.browser.name ?? null, os: os || null };
}

/** The browser and operating system a user agent names; "Unknown browser" when it names none. */
export function describeUserAgent(
  userAgent: string | null,
  t: TFunction = english,
): { browser: string; os: string; device: string } {
  return deviceWords(userAgentParts(userAgent), t);
}

/** The browser and system, without versions: the same browser after an update is the same family. */
export function userAgentFamily(userAgent: string | null): string {
  const parsed = new UAParser(userAgent ?? "").getResult();
  return `${parsed.browser.name ?? "?"}|${parsed.os.name ?? "?"}`;
}
