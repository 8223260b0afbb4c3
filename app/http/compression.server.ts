import { constants, createBrotliCompress, createGzip } from "node:zlib";

// When a response is compressed (docs/decisions/013-request-path.md): only text-like types, never
// an event stream (each frame must leave at once), and never a body known to be under 1 KB, where
// the headers and the CPU cost more than the bytes saved (most JSON API answers). Brotli at a
// quality fit for per-request work, else gzip.

export const MIN_COMPRESS_BYTES = 1024;

const COMPRESSIBLE =
  /^(?:text\/(?!event-stream)|application\/(?:json|javascript|xml|manifest\+json|[\w.+-]+\+json|[\w.+-]+\+xml)|image\/svg\+xml)/i;

export type Encoding = "br" | "gzip";

/** The encoding the client prefers among ours (q=0 refuses one), or null for identity. */
export function acceptedEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const q: Partial<Record<string, number>> = {};
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name = "", ...params] = part.trim().split(";");
    const weight = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    q[name.trim()] = weight === undefined ? 1 : Number(weight);
  }
  const of = (name: Encoding) => q[name] ?? q["*"] ?? 0;
  if (of("br") > 0 && of("br") >= of("gzip")) return "br";
  if (of("gzip") > 0) return "gzip";
  return null;
}

export function isCompressible(contentType: string | null | undefined): boolean {
  return !!contentType && COMPRESSIBLE.test(contentType);
}

/**
 * Whether to compress this response: a compressible type, no encoding already, and a body of
 * `length` bytes at least MIN_COMPRESS_BYTES (undefined: still streaming, so it will be larger).
 */
export function compressionFor(
  acceptEncoding: string | undefined,
  headers: { get(name: string): string | null },
  length: number | undefined,
): Encoding | null {
  if (headers.get("Content-Encoding")) return null;
  if (!isCompressible(headers.get("Content-Type"))) return null;
  if (length !== undefined && length < MIN_COMPRESS_BYTES) return null;
  if (/no-transform/i.test(headers.get("Cache-Control") ?? "")) return null;
  return acceptedEncoding(acceptEncoding);
}

/** A compressing stream for a body produced per request (cheap settings, not the smallest output). */
export function compressor(encoding: Encoding) {
  return encoding === "br"
    ? createBrotliCompress({
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 4,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : createGzip({ level: 6 });
}
