import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

// A stand-in for Postmark's POST /email, so no test ever reaches the real provider.
// Vitest starts it on port 0; the Playwright server starts it on a fixed port and specs read
// what it received with GET /__messages (DELETE clears; POST /__fail {ErrorCode, Message, To?} fails the
// next send, or with To the next one to that address).

type FakeMessage = {
  MessageID: string;
  token: string | null;
  From: string;
  To: string;
  Subject: string;
  HtmlBody?: string;
  TextBody?: string;
  Tag?: string;
  MessageStream?: string;
  receivedAt: string;
};

/** `To`: only a send to this address takes the failure (others pass), so parallel senders stay apart. */
type PostmarkFailure = { ErrorCode: number; Message: string; status?: number; To?: string };

export type FakePostmark = {
  url: string;
  port: number;
  messages: FakeMessage[];
  /** The next send (only) answers with this Postmark-style error. */
  failNext(failure: PostmarkFailure): void;
  /** Every send answers with this error until cleared with `null`. */
  failAlways(failure: PostmarkFailure | null): void;
  /** Holds every send without answering (a hanging provider) until `release()`. */
  hold(): void;
  /** Answers the held sends and stops holding. */
  release(): void;
  /** How many sends are being held right now. */
  readonly heldCount: number;
  clear(): void;
  close(): Promise<void>;
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

export async function startFakePostmark(port = 0, host = "127.0.0.1"): Promise<FakePostmark> {
  const messages: FakeMessage[] = [];
  let nextFailure: PostmarkFailure | null = null;
  let stickyFailure: PostmarkFailure | null = null;
  let counter = 0;
  let held: (() => void)[] | null = null;

  const server: Server = createServer(async (req, res) => {
    try {
      const path = new URL(req.url ?? "/", "http://fake").pathname;
      if (path === "/__messages" && req.method === "GET") return json(res, 200, { messages });
      if (path === "/__messages" && req.method === "DELETE") {
        messages.length = 0;
        return json(res, 200, { ok: true });
      }
      if (path === "/__fail" && req.method === "POST") {
        nextFailure = JSON.parse(await readBody(req)) as PostmarkFailure;
        return json(res, 200, { ok: true });
      }
      if (path !== "/email" || req.method !== "POST") {
        return json(res, 404, { ErrorCode: 404, Message: `Fake Postmark: no route ${req.method} ${path}` });
      }
      const token = req.headers["x-postmark-server-token"];
      if (typeof token !== "string" || token === "") {
        return json(res, 401, {
          ErrorCode: 10,
          Message: "No Account or Server API tokens were supplied in the HTTP headers.",
        });
      }
      if (held) {
        const queue = held;
        await new Promise<void>((resolve) => queue.push(resolve));
      }
      const body = JSON.parse(await readBody(req)) as Partial<FakeMessage>;
      const next =
        nextFailure?.To && nextFailure.To.toLowerCase() !== body.To?.toLowerCase() ? null : nextFailure;
      if (next) nextFailure = null;
      const failure = next ?? stickyFailure;
      if (failure)
        return json(res, failure.status ?? 422, { ErrorCode: failure.ErrorCode, Message: failure.Message });
      if (!body.From || !body.To || !body.Subject) {
        return json(res, 422, {
          ErrorCode: 300,
          Message: "Invalid email request: From, To and Subject are required.",
        });
      }
      const MessageID = `fake-${++counter}-${Date.now().toString(36)}`;
      const receivedAt = new Date().toISOString();
      messages.push({ ...(body as FakeMessage), MessageID, token, receivedAt });
      return json(res, 200, { To: body.To, SubmittedAt: receivedAt, MessageID, ErrorCode: 0, Message: "OK" });
    } catch (error) {
      return json(res, 400, { ErrorCode: 402, Message: `Fake Postmark: ${(error as Error).message}` });
    }
  });

  function release() {
    const queue = held ?? [];
    held = null;
    for (const resolve of queue) resolve();
  }

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${actual}`,
    port: actual,
    messages,
    failNext(failure) {
      nextFailure = failure;
    },
    failAlways(failure) {
      stickyFailure = failure;
    },
    hold() {
      held ??= [];
    },
    release,
    get heldCount() {
      return held?.length ?? 0;
    },
    clear() {
      release();
      messages.length = 0;
      nextFailure = null;
      stickyFailure = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// `tsx test/fake-postmark.ts [port]` runs it alone, e.g. to try the real client by hand.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const fake = await startFakePostmark(Number(process.argv[2] ?? 4010));
  console.log(`Fake Postmark listening on ${fake.url} (MAIL_API_URL=${fake.url})`);
}
