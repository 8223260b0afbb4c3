import type { ServerResponse } from "node:http";
import { openUserStream, type StreamOptions, type StreamSink } from "./stream.server";

// The event stream written straight to node's ServerResponse, without a web Request, Response or
// ReadableStream per connection: at 10,000 open streams those were most of the memory, and each
// frame went through several stream layers and promise hops before reaching the socket.

/** A client that reads nothing while this much waits for it is dropped (it reconnects when alive). */
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

/**
 * Sends the status line and `headers` (the event-stream headers plus whatever the middleware
 * added), then the user's events until either side closes. The response must not have started.
 */
export function writeUserEventStream(
  res: ServerResponse,
  userId: string,
  headers: [string, string][],
  options: StreamOptions = {},
) {
  // The client may have left while the caller authenticated it: its "close" has fired already.
  if (res.destroyed || !res.socket || res.socket.destroyed) return;
  // Frames are small and must leave at once: no Nagle delay waiting for an earlier segment's ACK.
  res.socket.setNoDelay(true);
  res.writeHead(200, headers.flat());
  // Handing node the head as a write of its own lets V8 flatten the header string node keeps for
  // the response's life (joined to the first frame it stays a ~70-piece rope: ~2 KB a stream,
  // measured); corked, the head and the opening ping still leave in one system call.
  res.socket.cork();
  res.flushHeaders();
  const close = openUserStream(userId, new ResponseSink(res), options);
  res.socket.uncork();
  // Fires however the connection ends: the client left, the socket was destroyed, or we ended it.
  res.once("close", close);
}
