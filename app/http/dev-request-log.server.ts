import type { RequestLog } from "./node-server.server";

// The development server's request log (server.ts): one short line a request, and nothing for
// what Vite serves the browser to run the app (source modules, packages, its client, icons),
// about a hundred requests a page view that buried the lines worth reading. Production keeps
// pino's JSON lines, every request included.

/** Paths the dev server answers with code and files rather than pages or data. */
const DEV_ASSET =
  /^\/(?:assets\/|@vite\/|@id\/|@fs\/|@react-refresh|@react-router\/|node_modules\/|app\/|__manifest(?:\?|$)|favicon\.|apple-touch-icon|icon-\d+\.png|site\.webmanifest)/;

/** True for what development's machinery asks for (see DEV_ASSET). */
export function isDevAsset(url: string): boolean {
  return DEV_ASSET.test(url);
}

/**
 * "GET /dashboard 200 12 ms", or undefined for an asset that was served (a failed one, such as a
 * 404 or the optimizer's 504, is shown: that is what one looks for). A 5xx names its request id,
 * which the error's own log line carries.
 */
export function devRequestLine(entry: RequestLog): string | undefined {
  if (entry.status < 400 && isDevAsset(entry.url)) return undefined;
  const line = `${entry.method} ${entry.url} ${entry.status} ${Math.round(entry.ms)} ms`;
  return entry.status >= 500 ? `${line} (request ${entry.requestId})` : line;
}
