import { describe, expect, it } from "vitest";
import { describeUserAgent } from "../http/user-agent";
import { describeSessions, timeAgo } from "./session-view";

const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const FIREFOX_WIN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

describe("session descriptions", () => {
  it("name the browser and the operating system from the user agent", () => {
    expect(describeUserAgent(CHROME_MAC)).toEqual({
      browser: "Chrome",
      os: "macOS",
      device: "Chrome on macOS",
    });
    expect(describeUserAgent(FIREFOX_WIN).device).toBe("Firefox on Windows 10");
    expect(describeUserAgent(SAFARI_IPHONE).device).toBe("Mobile Safari on iOS");
    expect(describeUserAgent(null)).toEqual({
      browser: "Unknown browser",
      os: "an unknown system",
      device: "Unknown browser",
    });
    expect(describeUserAgent("curl/8.0").device).toBe("Unknown browser");
  });

  it("say when a session was last used, in words", () => {
    const now = Date.parse("2026-03-01T12:00:00.000Z");
    expect(timeAgo("2026-03-01T11:59:30.000Z", now)).toBe("just now");
    expect(timeAgo("2026-03-01T11:55:00.000Z", now)).toBe("5 minutes ago");
    expect(timeAgo("2026-03-01T10:00:00.000Z", now)).toBe("2 hours ago");
    expect(timeAgo("2026-02-28T11:00:00.000Z", now)).toBe("yesterday");
    const [row] = describeSessions(
      [
        {
          id: "h",
          current: false,
          ip: null,
          userAgent: CHROME_MAC,
          createdAt: "2026-03-01T09:00:00.000Z",
          lastSeenAt: "2026-03-01T11:55:00.000Z",
        },
      ],
      now,
    );
    expect(row).toMatchObject({ device: "Chrome on macOS", lastUsed: "5 minutes ago" });
  });
});
