import { EventStreamClient } from "./event-stream";
import type { RequestLog } from "./requests";

type Via = { name: string; url: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Signed-in readers: each repeats a page, an API list and a ping, one request at a time, about
 * `perSecond` requests a second (less when answers are slow), until stopped.
 */
export function startReaders(log: RequestLog, readers: { via: Via; cookie: string }[], perSecond: number) {
  let running = true;
  const paths = ["/dashboard", "/api/tasks?limit=5", "/api/ping"];
  const gap = 1000 / perSecond;
  const loops = readers.map(async ({ via, cookie }, n) => {
    await sleep((gap * n) / readers.length);
    for (let i = n; running; i++) {
      const t = Date.now();
      await log.send(via, "GET", paths[i % paths.length]!, { cookie });
      await sleep(Math.max(0, gap - (Date.now() - t)));
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

type CreatedTask = { taskId: string; owner: string; phase: string };

/**
 * People who each keep an event stream open and start a short task, wait for its completion
 * on their stream (at most `waitMs`), then start the next, until stopped. Every task-completed
 * event is counted per task id and per owner, so the report can tell missing from duplicated.
 */
export function startTaskUsers(
  log: RequestLog,
  users: { name: string; via: Via; cookie: string }[],
  options: { durationMs: number; waitMs: number },
) {
  let creating = true;
  const created: CreatedTask[] = [];
  const owner = new Map<string, string>(); // taskId → user name
  /** `${user}\t${taskId}` → task-completed events the user's stream carried. */
  const deliveries = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const streams = users.map((u) => {
    const client = new EventStreamClient(u.via.url, u.cookie, (event) => {
      if (event.type !== "task-completed") return;
      const { taskId } = JSON.parse(event.data) as { taskId: string };
      const key = `${u.name}\t${taskId}`;
      deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      waiters.get(key)?.();
    });
    client.start();
    return { user: u, client };
  });

  const loops = users.map(async (u, n) => {
    // A stream opened after its owner's first task completed never carries that completion (a
    // fresh stream starts at the newest event): on a loaded machine the first open took over the
    // task's 1.5 s and the warm-up "lost" a completion no stream had been open for.
    for (let waited = 0; streams[n]!.client.opened === 0 && waited < 15_000; waited += 50) await sleep(50);
    await sleep(n * 150);
    while (creating) {
      const out = await log.send(u.via, "POST", "/api/tasks", {
        cookie: u.cookie,
        json: { type: "report.generate", payload: { durationMs: options.durationMs } },
      });
      if (!out.ok) {
        await sleep(1_000);
        continue;
      }
      const { taskId } = JSON.parse(out.body) as { taskId: string };
      created.push({ taskId, owner: u.name, phase: log.phase });
      owner.set(taskId, u.name);
      const key = `${u.name}\t${taskId}`;
      if (deliveries.has(key)) continue; // completed before the answer arrived
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, options.waitMs);
        function done() {
          clearTimeout(timer);
          waiters.delete(key);
          resolve();
        }
        waiters.set(key, done);
      });
    }
  });

  return {
    created,
    deliveries,
    streams,
    /** Stops starting tasks; streams stay open to receive what is still running. */
    async stopCreating() {
      creating = false;
      for (const w of [...waiters.values()]) w();
      await Promise.all(loops);
    },
    async closeStreams() {
      await Promise.all(streams.map((s) => s.client.stop()));
    },
    /** Deliveries of one task to its owner. */
    delivered(taskId: string): number {
      return deliveries.get(`${owner.get(taskId)}\t${taskId}`) ?? 0;
    },
  };
}
