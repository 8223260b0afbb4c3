import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, expect, it, vi } from "vitest";

// The server pipeline hands each page and API request to admission with a test for a client that
// has gone. Admission is held here, so the client can leave while its request waits its turn.

type Held = { work: () => void; gone?: () => boolean; abandon?: () => void };
const held: Held[] = [];
let server: Server;
let port = 0;
let handled = 0;

beforeAll(async () => {
  vi.resetModules();
  vi.doMock("./admission.server", () => ({
    admit: (work: () => void, gone?: () => boolean, abandon?: () => void) =>
      held.push({ work, gone, abandon }),
  }));
  const { createPipeline } = await import("./node-server.server");
  const listener = createPipeline({
    trustProxy: 0,
    isAllowedHost: () => true,
    log: () => {},
    readiness: async () => ({ ready: true }),
    handle: async () => {
      handled++;
      return Response.json({ ok: true });
    },
    onError: () => {},
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  vi.doUnmock("./admission.server");
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function until(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

it("does not run a request whose client left while it waited for its turn; runs one whose client stayed", async () => {
  const leaving = connect(port, "127.0.0.1");
  leaving.write(`GET /api/small HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  await until(() => held.length === 1);
  leaving.destroy();
  const first = held[0]!;
  await until(() => first.gone?.() === true);
  first.gone!() ? first.abandon!() : first.work();

  const staying = fetch(`http://127.0.0.1:${port}/api/small`);
  await until(() => held.length === 2);
  const second = held[1]!;
  expect(second.gone?.()).toBe(false);
  second.work();
  expect((await staying).status).toBe(200);
  expect(handled).toBe(1);
});
