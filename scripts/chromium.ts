import { existsSync } from "node:fs";
import { chromium } from "@playwright/test";

const HOW_TO =
  "No Chromium found. Install Debian's package (apt-get install -y chromium-headless-shell), or set CHROMIUM_PATH to a Chromium or Chrome binary.";

/**
 * CHROMIUM_PATH, then Debian's headless shell, then its full Chromium, then Playwright's own download
 * if one exists. The headless shell is what Playwright itself runs headless: the full browser's new
 * headless mode took 38 % more CPU for the same specs (teams, users, broadcast: 338 s against 245 s
 * on 2 cores), and the suite is CPU-bound there.
 */
export function chromiumPath(): string {
  const candidates = [
    process.env.CHROMIUM_PATH,
    "/usr/bin/chromium-headless-shell",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {}
  throw new Error(HOW_TO);
}
