import { describe, expect, it } from "vitest";
import { readTheme, themeSetCookie } from "./theme.server";

const withCookie = (cookie: string) => new Request("http://localhost/", { headers: { Cookie: cookie } });

describe("the theme cookie", () => {
  it("reads each theme back, among other cookies, and falls back to system", async () => {
    for (const theme of ["light", "dark", "system"] as const) {
      const cookie = (await themeSetCookie(theme)).split(";")[0]!;
      expect(await readTheme(withCookie(`a=1; ${cookie}; b=2`))).toBe(theme);
      expect(await readTheme(withCookie(cookie))).toBe(theme); // a second time, remembered
    }
    expect(await readTheme(new Request("http://localhost/"))).toBe("system");
    expect(await readTheme(withCookie("theme=garbage"))).toBe("system");
    expect(await readTheme(withCookie("xtheme=ImRhcmsi"))).toBe("system");
  });
});
