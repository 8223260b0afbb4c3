import { AsyncLocalStorage } from "node:async_hooks";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { admit } from "./admission.server";

const open: (Server | Socket)[] = [];
afterEach(() => {
  for (const handle of open.splice(0)) "destroy" in handle ? handle.destroy() : handle.close();
});

/** A connected loopback pair: what the client writes arrives as a `data` event in a later poll. */
async function loopback(onData: () => void): Promise<Socket> {
  let accepted!: () => void;
  const serverSide = new Promise<void>((done) => {
    accepted = done;
  });
  const server = createServer((socket) => {
    open.push(socket);
    socket.on("data", onData);
    accepted();
  });
  open.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  const client = connect(port, "127.0.0.1");
  open.push(client);
  await Promise.all([new Promise((done) => client.once("connect", done)), serverSide]);
  return client;
}

describe("admit", () => {
  it("starts queued work in order, a bounded batch per turn: I/O is polled before a backlog is through", async () => {
    const order: string[] = [];
    let dataSeen!: () => void;
    const seen = new Promise<void>((done) => {
      dataSeen = done;
    });
    const client = await loopback(() => {
      order.push("data");
      dataSeen();
    });
    const backlog = 500;
    await new Promise<void>((done) => {
      admit(() => {
        order.push("0");
        client.write("x"); // arrives for the poll phase of the next turn
      });
      for (let i = 1; i < backlog; i++) admit(() => order.push(String(i)));
      admit(done);
    });
    await seen;
    const work = order.filter((entry) => entry !== "data");
    expect(work).toEqual(Array.from({ length: backlog }, (_, i) => String(i)));
    // Run all at once, the backlog would be through before the poll saw the data.
    const polledAt = order.indexOf("data");
    expect(polledAt).toBeGreaterThan(0);
    expect(polledAt).toBeLessThan(backlog / 2);
  });

  it("abandons a piece whose client left while it waited, and runs the rest", async () => {
    const ran: string[] = [];
    let left = false;
    await new Promise<void>((done) => {
      admit(() => {
        ran.push("first");
        left = true; // the second one's client goes away before its turn
      });
      admit(
        () => ran.push("second"),
        () => left,
        () => ran.push("second abandoned"),
      );
      admit(
        () => ran.push("third"),
        () => false,
        () => ran.push("third abandoned"),
      );
      admit(done);
    });
    expect(ran).toEqual(["first", "second abandoned", "third"]);
  });

  it("keeps going after a piece that throws", async () => {
    const ran: number[] = [];
    const uncaught: unknown[] = [];
    const listeners = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", (error) => uncaught.push(error));
    try {
      await new Promise<void>((done) => {
        admit(() => {
          ran.push(1);
          throw new Error("boom");
        });
        admit(() => {
          ran.push(2);
          done();
        });
      });
    } finally {
      process.removeAllListeners("uncaughtException");
      for (const listener of listeners) process.on("uncaughtException", listener);
    }
    expect(ran).toEqual([1, 2]);
    expect(uncaught).toHaveLength(1);
  });

  it("runs each piece in the async context it was queued from", async () => {
    const store = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    await new Promise<void>((done) => {
      store.run("a", () => admit(() => seen.push(store.getStore())));
      store.run("b", () => admit(() => seen.push(store.getStore())));
      admit(() => {
        seen.push(store.getStore());
        done();
      });
    });
    expect(seen).toEqual(["a", "b", undefined]);
  });
});
