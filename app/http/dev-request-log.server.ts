import type { RequestLog } from "./node-server.server";

// Nothing for the hundred or so requests a page view makes for Vite's code and files, which buried the lines worth reading.

const DEV_ASSET =
  /^\/(?:assets\/|@vite\/|@id\/|@fs\/|@react-refresh|@react-router\/|node_modules\/|app\/|__manifest(?:\?|$)|favicon\.|apple-touch-icon|icon-\d+\.png|site\.webmanifest)/;

export function isDevAsset(url: string): boolean {
  return DEV_ASSET.test(url);
}

/** A failed asset is shown: that is what one looks for. */
export function devRequestLine(entry: RequestLog): string | undefined {
  if (entry.status < 400 && isDevAsset(entry.url)) return undefined;
  const line = `${entry.method} ${entry.url} ${entry.status} ${Math.round(entry.ms)} ms`;
  return entry.status >= 500 ? `${line} (request ${entry.requestId})` : line;
}
