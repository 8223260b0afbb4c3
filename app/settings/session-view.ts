import { UAParser } from "ua-parser-js";

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

/** The browser and operating system a user agent names; "Unknown browser" when it names none. */
export function describeUserAgent(userAgent: string | null): { browser: string; os: string; device: string } {
  const parsed = new UAParser(userAgent ?? "").getResult();
  const browser = parsed.browser.name ?? "Unknown browser";
  const osName = parsed.os.name === "Mac OS" ? "macOS" : parsed.os.name;
  const os = osName
    ? [osName, parsed.os.name === "Windows" ? parsed.os.version : null].filter(Boolean).join(" ")
    : "";
  return { browser, os: os || "an unknown system", device: os ? `${browser} on ${os}` : browser };
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** "just now", "5 minutes ago", "2 days ago": how long since `iso`, as of `now`. */
export function timeAgo(iso: string, now: number): string {
  const elapsed = Math.max(0, now - Date.parse(iso));
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  for (const [unit, ms] of UNITS) if (elapsed >= ms) return format.format(-Math.floor(elapsed / ms), unit);
  return "just now";
}

export function describeSessions(rows: SessionRow[], now = Date.now()): SessionDescription[] {
  return rows.map((row) => ({
    ...row,
    ...describeUserAgent(row.userAgent),
    lastUsed: timeAgo(row.lastSeenAt, now),
  }));
}
