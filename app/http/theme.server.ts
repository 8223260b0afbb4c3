import { createCookie } from "react-router";
import { z } from "zod";

export const THEMES = ["light", "dark", "system"] as const;
export type Theme = (typeof THEMES)[number];

const themeCookie = createCookie("theme", { path: "/", sameSite: "lax", maxAge: 60 * 60 * 24 * 365 });

export async function readTheme(request: Request): Promise<Theme> {
  const value = await themeCookie.parse(request.headers.get("Cookie"));
  const parsed = z.enum(THEMES).safeParse(value);
  return parsed.success ? parsed.data : "system";
}

export function themeSetCookie(theme: Theme): Promise<string> {
  return themeCookie.serialize(theme);
}
