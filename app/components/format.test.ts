import { describe, expect, it } from "vitest";
import { formatDateTimeIn, formatDayMonthIn, formatNumberIn } from "./format";

describe("dates and numbers in the page's language", () => {
  const iso = "2026-11-23T07:39:00.000Z";

  it("formats a date the English way in English and the German way in German, in UTC", () => {
    expect(formatDateTimeIn("en", iso)).toBe("23 Nov 2026, 07:39 UTC");
    expect(formatDateTimeIn("de", iso)).toBe("23.11.2026, 07:39 UTC");
  });

  it("keeps UTC whatever the hour", () => {
    expect(formatDateTimeIn("de", "2026-11-23T23:30:00+02:00")).toBe("23.11.2026, 21:30 UTC");
  });

  it("labels a chart's days in each language, the same label again from the kept ones", () => {
    for (let i = 0; i < 2; i++) {
      expect(formatDayMonthIn("en", "2026-11-04")).toBe("04/11");
      expect(formatDayMonthIn("de", "2026-11-04")).toBe("04.11.");
    }
    // Past the kept labels' bound, still right.
    for (let d = 1; d <= 28; d++)
      for (let m = 1; m <= 12; m++)
        formatDayMonthIn("en", `2026-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`);
    expect(formatDayMonthIn("de", "2026-01-31")).toBe("31.01.");
  });

  it("shows a dash for no date", () => {
    expect(formatDateTimeIn("de", null)).toBe("—");
    expect(formatDateTimeIn("en", undefined)).toBe("—");
  });

  it("groups numbers per language", () => {
    expect(formatNumberIn("en", 1234567)).toBe("1,234,567");
    expect(formatNumberIn("de", 1234567)).toBe("1.234.567");
  });
});
