import type { TFunction } from "i18next";
import { english } from "../http/device-words";
import { describeUserAgent } from "../http/user-agent";
import { intlLocale } from "../i18n/options";

// How a signed-in session reads on the Settings page: "Chrome on macOS, last used 5 minutes ago",
// from the user agent the session was started with (parsed here, once, not in the component).

export type SessionRow = {
  id: string;
  current: boolean;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string;
};

export type SessionDescription = SessionRow & {
  browser: string;
  os: string;
  /** "Chrome on macOS" */
  device: string;
  /** "5 minutes ago" */
  lastUsed: string;
};

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** "just now", "5 minutes ago", "2 days ago": how long since `iso`, as of `now`. */
export function timeAgo(iso: string, now: number, language = "en", t: TFunction = english): string {
  const elapsed = Math.max(0, now - Date.parse(iso));
  const format = new Intl.RelativeTimeFormat(intlLocale(language), { numeric: "auto" });
  for (const [unit, ms] of UNITS) if (elapsed >= ms) return format.format(-Math.floor(elapsed / ms), unit);
  return t("settings:sessions.justNow");
}

/** In the reader's language when given its `t` (the Settings page passes the request's). */
export function describeSessions(
  rows: SessionRow[],
  now = Date.now(),
  reader: { language: string; t: TFunction } = { language: "en", t: english },
): SessionDescription[] {
  return rows.map((row) => ({
    ...row,
    ...describeUserAgent(row.userAgent, reader.t),
    lastUsed: timeAgo(row.lastSeenAt, now, reader.language, reader.t),
  }));
}
