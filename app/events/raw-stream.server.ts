import type { ServerResponse } from "node:http";
import { openUserStream, type StreamOptions, type StreamSink } from "./stream.server";

// Straight to node's ServerResponse: at 10,000 open streams the web Request, Response and
// ReadableStream per connection were most of the memory (decision 014).

/** A client reading nothing is dropped (it reconnects when alive). */
export const MAX_UNSENT_BYTES = 64 * 1024;

class ResponseSink implements StreamSink {
  constructor(private readonly res: ServerResponse) {}

  write(text: string): boolean {
    const res = this.res;
    if (res.destroyed || res.writableEnded || res.writableLength > MAX_UNSENT_BYTES) return false;
    res.write(text);
    return true;
  }

  end() {
    if (!this.res.writableEnded) this.res.end();
  }
}

/** The response must not have started. */
export function writeUserEventStream(
  res: ServerResponse,
  userId: string,
  headers: [string, string][],
  options: StreamOptions = {},
) {
  // The client may have left while the caller authenticated it: its "close" has fired already.
  if (res.destroyed || !res.socket || res.socket.destroyed) return;
  // Frames must leave at once: no Nagle delay.
  res.socket.setNoDelay(true);
  res.writeHead(200, headers.flat());
  // The head as a write of its own lets V8 flatten the header string node keeps (~2 KB a stream
  // otherwise); corked, head and opening ping still leave in one system call.
  res.socket.cork();
  res.flushHeaders();
  const close = openUserStream(userId, new ResponseSink(res), options);
  res.socket.uncork();
  res.once("close", close);
}
