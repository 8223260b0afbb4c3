/**
 * A browser's EventSource, reduced to what the cluster test counts: it parses frames as the
 * HTML standard does (event, data, id, retry), sends Last-Event-ID when it reconnects, waits the
 * server's `retry:` (1 s until one comes) plus jitter, and reconnects after any end: a closed
 * stream, a refused or failed connection, a non-200 answer, no answer within 15 s, or 40 s of
 * silence (pings come every 15 s).
 */
export type StreamEvent = { type: string; data: string; id: string | undefined };

const SILENCE_MS = 40_000;

export class EventStreamClient {
  lastEventId: string | undefined;
  retryMs = 1_000;
  /** Streams opened with 200. */
  opened = 0;
  /** Attempts that got no stream: "status 503", "TypeError: fetch failed", … */
  readonly failedAttempts: string[] = [];
  /** Frames that carried an id, so a server that sends none shows in the report. */
  withId = 0;
  /** Each stream opened (when, and the Last-Event-ID it resumed from) and each id received, for a report on a lost event. */
  readonly opens: { at: number; resumedFrom: string | undefined }[] = [];
  readonly ids: { at: number; id: string; type: string }[] = [];
  private running = true;
  private controller: AbortController | undefined;
  private done: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly cookie: string,
    private readonly onEvent: (event: StreamEvent) => void,
  ) {}

  start() {
    this.done = this.loop();
  }

  async stop() {
    this.running = false;
    this.controller?.abort();
    await this.done;
  }

  private async loop() {
    while (this.running) {
      await this.once().catch((error: Error) => {
        if (this.running)
          this.failedAttempts.push(`${error.name}: ${error.message} ${String(error.cause ?? "")}`.trim());
      });
      if (!this.running) break;
      await new Promise((r) => setTimeout(r, this.retryMs + Math.random() * 250));
    }
  }

  private async once() {
    const controller = new AbortController();
    this.controller = controller;
    const headers: Record<string, string> = { Cookie: this.cookie, Accept: "text/event-stream" };
    if (this.lastEventId) headers["Last-Event-ID"] = this.lastEventId;
    // A stream whose answer does not even begin is given up like a silent one.
    const waiting = setTimeout(() => controller.abort(new Error("no answer within 15 s")), 15_000);
    const res = await fetch(`${this.url}/api/events`, { headers, signal: controller.signal }).finally(() =>
      clearTimeout(waiting),
    );
    if (res.status !== 200 || !res.body) {
      this.failedAttempts.push(`status ${res.status}`);
      await res.body?.cancel();
      return;
    }
    this.opened++;
    this.opens.push({ at: Date.now(), resumedFrom: headers["Last-Event-ID"] });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let frame = { type: "", data: [] as string[], id: undefined as string | undefined };
    let silence = setTimeout(() => controller.abort(), SILENCE_MS);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        clearTimeout(silence);
        silence = setTimeout(() => controller.abort(), SILENCE_MS);
        buffer += decoder.decode(value, { stream: true });
        let newline = buffer.search(/\r\n|\r|\n/);
        while (newline !== -1) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
          if (line === "") {
            if (frame.id !== undefined) {
              this.lastEventId = frame.id;
              this.ids.push({ at: Date.now(), id: frame.id, type: frame.type || "message" });
            }
            if (frame.data.length > 0) {
              if (frame.id !== undefined) this.withId++;
              this.onEvent({ type: frame.type || "message", data: frame.data.join("\n"), id: frame.id });
            }
            frame = { type: "", data: [], id: undefined };
          } else if (!line.startsWith(":")) {
            const colon = line.indexOf(":");
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "event") frame.type = value;
            else if (field === "data") frame.data.push(value);
            else if (field === "id" && !value.includes("\0")) frame.id = value;
            else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
          }
          newline = buffer.search(/\r\n|\r|\n/);
        }
      }
    } catch (error) {
      // Our own abort after silence or at stop: reconnect (or leave) as after an end.
      if (!controller.signal.aborted) throw error;
      if (this.running) this.failedAttempts.push("silent for 40 s");
    } finally {
      clearTimeout(silence);
    }
  }
}
