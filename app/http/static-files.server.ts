import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { extname, join, relative } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { acceptedEncoding, type Encoding, isCompressible, MIN_COMPRESS_BYTES } from "./compression.server";

// The build's client files, served by server.ts: /assets/* (content-hashed names, so cached for a
// year as immutable; an unknown name is a 404 here, never a page render) and the files at the root
// of build/client (favicon, manifest: an hour). Only names found at start are served, so no path
// a client sends can reach another file. Bodies are read once and kept (the build is ~1 MB), with
// the .br/.gz the build wrote beside them (scripts/build-server.ts), else compressed once here.

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
};

const IMMUTABLE = "public, max-age=31536000, immutable";
const ONE_HOUR = "public, max-age=3600";

type Entry = {
  path: string;
  type: string;
  cacheControl: string;
  etag: string;
  lastModified: string;
  body?: Promise<Buffer>;
  encoded: Partial<Record<Encoding, Promise<Buffer | null>>>;
};

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function entryFor(path: string, cacheControl: string): Entry {
  const stat = statSync(path);
  return {
    path,
    type: TYPES[extname(path).toLowerCase()] ?? "application/octet-stream",
    cacheControl,
    etag: `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`,
    lastModified: stat.mtime.toUTCString(),
    encoded: {},
  };
}

const PRECOMPRESSED = { br: ".br", gzip: ".gz" } as const;
const compress: Record<Encoding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
  gzip: (body) => promisify(gzip)(body, { level: 9 }),
};

function bodyOf(entry: Entry): Promise<Buffer> {
  entry.body ??= readFile(entry.path);
  return entry.body;
}

/** The body in `encoding`, or null when that would not be smaller (or the type does not compress). */
function encodedBody(entry: Entry, encoding: Encoding): Promise<Buffer | null> {
  entry.encoded[encoding] ??= (async () => {
    const body = await bodyOf(entry);
    if (!isCompressible(entry.type) || body.byteLength < MIN_COMPRESS_BYTES) return null;
    const beside = entry.path + PRECOMPRESSED[encoding];
    const encoded = existsSync(beside) ? await readFile(beside) : await compress[encoding](body);
    return encoded.byteLength < body.byteLength ? encoded : null;
  })();
  return entry.encoded[encoding]!;
}

export type StaticFiles = {
  /** Answers `pathname` when it is a client file (or under /assets/); false to let the app answer. */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): boolean;
};

export function staticFiles(clientDir: string): StaticFiles {
  const files = new Map<string, Entry>();
  if (existsSync(clientDir)) {
    for (const path of filesUnder(clientDir)) {
      if (path.endsWith(".br") || path.endsWith(".gz")) continue;
      const url = `/${relative(clientDir, path).split("\\").join("/")}`;
      files.set(url, entryFor(path, url.startsWith("/assets/") ? IMMUTABLE : ONE_HOUR));
    }
  }

  return {
    serve(req, res, pathname) {
      const entry = files.get(pathname);
      if (!entry && !pathname.startsWith("/assets/")) return false;
      void send(req, res, entry).catch((error) => res.destroy(error as Error));
      return true;
    },
  };
}

async function send(req: IncomingMessage, res: ServerResponse, entry: Entry | undefined) {
  const method = req.method ?? "GET";
  if (!entry) {
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
    return void res.end("Not Found\n");
  }
  if (method !== "GET" && method !== "HEAD") {
    res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" });
    return void res.end("Method Not Allowed\n");
  }
  const headers: OutgoingHttpHeaders = {
    "Content-Type": entry.type,
    "Cache-Control": entry.cacheControl,
    ETag: entry.etag,
    "Last-Modified": entry.lastModified,
  };
  if (isCompressible(entry.type)) headers.Vary = "Accept-Encoding";
  if (req.headers["if-none-match"]?.split(/\s*,\s*/).includes(entry.etag)) {
    res.writeHead(304, headers);
    return void res.end();
  }
  const encoding = acceptedEncoding(req.headers["accept-encoding"]);
  const encoded = encoding ? await encodedBody(entry, encoding) : null;
  const body = encoded ?? (await bodyOf(entry));
  if (encoded) headers["Content-Encoding"] = encoding!;
  headers["Content-Length"] = body.byteLength;
  res.writeHead(200, headers);
  res.end(method === "HEAD" ? undefined : body);
}
