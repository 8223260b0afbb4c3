// Preloaded into the server by `npm run bench:sse` (node --import): answers the bench over the
// IPC channel with the event bus's subscriber count, so the bench can check that every dropped
// stream was let go, and with the process's memory. Plain JavaScript, so it loads whether the
// server runs through tsx or not.
process.on("message", (message) => {
  if (message !== "sse-stats") return;
  const bus = globalThis.__systemEventBus;
  // BENCH_NODE_ARGS=--expose-gc: live memory only, without the garbage RSS also holds.
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ subscribers: bus ? bus.subscriberCount() : 0, rss, heapUsed });
});
// The IPC channel must not keep a stopping server alive.
process.channel?.unref();
