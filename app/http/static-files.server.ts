import type { IncomingMessage, ServerResponse } from "node:http";
import sirv from "sirv";

// The build's client files, served by sirv (docs/decisions/041-request-path.md): /assets/* have
// content-hashed names, so they are cached for a year as immutable, and an unknown name there is a
// 404, never a page render; the files at the root of build/client (favicon, manifest) for an hour.
// sirv lists the files once at start, so no path a client sends reaches another file, and answers
// with the .br/.gz that scripts/build-server.ts wrote beside each file worth compressing.

const IMMUTABLE = "public, max-age=31536000, immutable";
const ONE_HOUR = "public, max-age=3600";

/** Answers a client file and returns true, or returns false to let the app answer. */
export type StaticFiles = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

export function staticFiles(clientDir: string): StaticFiles {
  const serve = sirv(clientDir, {
    etag: true,
    brotli: true,
    gzip: true,
    extensions: [],
    setHeaders(res, pathname) {
      res.setHeader("Cache-Control", pathname.startsWith("/assets/") ? IMMUTABLE : ONE_HOUR);
      // sirv's type table (mrmime) has no .ico.
      if (pathname.endsWith(".ico")) res.setHeader("Content-Type", "image/x-icon");
    },
  });
  return (req, res, pathname) => {
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD") return false;
    // sirv looks the name up in memory and calls `next` at once when it is not a client file.
    let missed = false;
    serve(req, res, () => {
      missed = true;
    });
    if (!missed) return true;
    if (!pathname.startsWith("/assets/")) return false;
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
    res.end("Not Found\n");
    return true;
  };
}
