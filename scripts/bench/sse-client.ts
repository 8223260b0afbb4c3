import http from "node:http";

export type SseConnection = { close(): void; onFrame(listener: (frame: string) => void): void };

/** Opens GET /api/events with a cookie; resolves once the status line arrived (200 expected). */
export function openSse(base: string, cookie: string): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const listeners: ((frame: string) => void)[] = [];
    const req = http.get(`${base}/api/events`, { headers: { Cookie: cookie }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`SSE answered ${res.statusCode}`));
        return;
      }
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (listeners.length === 0) return;
        buffer += chunk;
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const listener of listeners) listener(frame);
          end = buffer.indexOf("\n\n");
        }
      });
      res.on("error", () => {});
      resolve({ close: () => req.destroy(), onFrame: (l) => listeners.push(l) });
    });
    req.on("error", reject);
  });
}

/** Opens `count` streams, `parallel` at a time. */
export async function openMany(base: string, cookies: string[], count: number, parallel = 100) {
  const open: SseConnection[] = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      const i = next++;
      open.push(await openSse(base, cookies[i % cookies.length]!));
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker));
  return open;
}
