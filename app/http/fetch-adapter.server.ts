import { type IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { compressionFor, compressor, type Encoding, isCompressible } from "./compression.server";

// node:http <-> Fetch for server.ts: a Request React Router can answer, and its Response written
// back with the compression policy of compression.server.ts. Written out instead of going through
// Express (decision 013): this is the whole of what the app needs from a server framework.

/** The Request for `req`; its signal aborts when the client goes before the answer is complete. */
export function toRequest(req: IncomingMessage, res: ServerResponse, origin: string): Request {
  const controller = new AbortController();
  let finished = false;
  res.once("finish", () => {
    finished = true;
  });
  res.once("close", () => {
    if (!finished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal: controller.signal };
  if (method !== "GET" && method !== "HEAD") {
    init.body = bodyStream(req);
    init.duplex = "half";
  }
  return new Request(origin + req.url, init);
}

/** The request body as a web stream that reads the socket only as fast as the app consumes it. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once("end", () => controller.close());
      req.once("error", (error) => controller.error(error));
      req.once("close", () => {
        if (!req.complete)
          controller.error(new Error("The client closed the request before its body ended."));
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      req.resume(); // read and drop the rest, so the connection can be reused
    },
  });
}

function nodeHeaders(response: Response): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of response.headers) {
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else out[name] = Array.isArray(seen) ? [...seen, value] : [String(seen), value];
  }
  return out;
}

const oneShot: Record<Encoding, (body: Uint8Array) => Promise<Buffer>> = {
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 4,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

function waitForDrain(res: ServerResponse | NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

function writeHead(res: ServerResponse, response: Response, headers: OutgoingHttpHeaders) {
  // An empty reason phrase ("HTTP/1.1 200 ") when the Response has none: Node's default instead.
  if (response.statusText) res.writeHead(response.status, response.statusText, headers);
  else res.writeHead(response.status, headers);
}

/**
 * Writes `response` to `res`. A body that arrives whole (most loaders' JSON, redirects) goes out
 * with a Content-Length, compressed only when large enough; a streamed one (server-rendered HTML)
 * is piped, compressed when the client accepts it; an event stream is flushed frame by frame.
 */
export async function sendResponse(req: IncomingMessage, res: ServerResponse, response: Response) {
  const headers = nodeHeaders(response);
  const body = response.body;
  if (body === null || req.method === "HEAD") {
    await body?.cancel().catch(() => {});
    writeHead(res, response, headers);
    res.end();
    return;
  }
  const type = response.headers.get("Content-Type");
  const reader = body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));

  if (type?.startsWith("text/event-stream")) {
    writeHead(res, response, headers);
    res.flushHeaders();
    await pump(reader, res);
    return;
  }

  const acceptEncoding = req.headers["accept-encoding"];
  const first = await reader.read();
  const second = first.done ? first : await reader.read();
  if (second.done) {
    // The whole body is known: a Content-Length, and compression only where it pays.
    const whole = first.value ?? new Uint8Array(0);
    const encoding = compressionFor(acceptEncoding, response.headers, whole.byteLength);
    const sent = encoding ? await oneShot[encoding](whole) : whole;
    if (encoding) headers["content-encoding"] = encoding;
    if (isCompressible(type) && whole.byteLength >= 1024) headers.vary = vary(headers.vary);
    headers["content-length"] = sent.byteLength;
    writeHead(res, response, headers);
    res.end(sent);
    return;
  }

  const encoding = compressionFor(acceptEncoding, response.headers, undefined);
  if (isCompressible(type)) headers.vary = vary(headers.vary);
  if (encoding) {
    headers["content-encoding"] = encoding;
    delete headers["content-length"];
  }
  writeHead(res, response, headers);
  const out = encoding ? compressor(encoding) : res;
  if (encoding) {
    out.pipe(res);
    res.once("close", () => out.destroy());
  }
  if (!(await write(out, first.value!)) || !(await write(out, second.value))) return;
  await pump(reader, out);
}

function vary(existing: OutgoingHttpHeaders[string]): string {
  const value = existing === undefined ? "" : String(existing);
  return /accept-encoding/i.test(value) ? value : value ? `${value}, Accept-Encoding` : "Accept-Encoding";
}

type Sink = ServerResponse | ReturnType<typeof compressor>;

/** Writes one chunk; false when the other side is gone. */
async function write(out: Sink, chunk: Uint8Array): Promise<boolean> {
  if (out.destroyed) return false;
  if (!out.write(chunk)) await waitForDrain(out);
  return !out.destroyed;
}

async function pump(reader: ReadableStreamDefaultReader<Uint8Array>, out: Sink) {
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch (error) {
      out.destroy(error as Error);
      return;
    }
    if (next.done) break;
    if (!(await write(out, next.value))) return;
    // Each part of a streamed page leaves compressed as it comes, not when zlib's buffer fills.
    if (!(out instanceof ServerResponse)) out.flush();
  }
  out.end();
}
