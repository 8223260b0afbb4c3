import { createCookie } from "react-router";
import { z } from "zod";

export const THEMES = ["light", "dark", "system"] as const;
export type Theme = (typeof THEMES)[number];

const themeCookie = createCookie("theme", { path: "/", sameSite: "lax", maxAge: 60 * 60 * 24 * 365 });

const THEME_COOKIE = /(?:^|;\s*)theme=([^;]*)/;

// Every page reads the theme; decoding and validating the cookie was a few percent of a page's
// data time. There are three real values, so the answers for the first few raw values are kept.
const known = new Map<string, Theme>();

export async function readTheme(request: Request): Promise<Theme> {
  const raw = THEME_COOKIE.exec(request.headers.get("Cookie") ?? "")?.[1];
  if (!raw) return "system";
  const hit = known.get(raw);
  if (hit) return hit;
  const parsed = z.enum(THEMES).safeParse(await themeCookie.parse(`theme=${raw}`));
  const theme = parsed.success ? parsed.data : "system";
  if (known.size < 32) known.set(raw, theme);
  return theme;
}

export function themeSetCookie(theme: Theme): Promise<string> {
  return themeCookie.serialize(theme);
}
