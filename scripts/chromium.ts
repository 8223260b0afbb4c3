import { existsSync } from "node:fs";
import { chromium } from "@playwright/test";

const HOW_TO =
  "No Chromium found. Install Debian's package (apt-get install -y chromium), or set CHROMIUM_PATH to a Chromium or Chrome binary.";

/** CHROMIUM_PATH, then Debian's /usr/bin/chromium, then Playwright's own download if one exists. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {}
  throw new Error(HOW_TO);
}
