/**
 * What the cluster test started (processes, a PostgreSQL cluster, temporary directories) is
 * ended by afterAll and, should the worker end first, by the process's 'exit' handler or a
 * signal's: each runs these synchronous steps, newest first, each once.
 */
const steps: (() => void)[] = [];
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function onSignal(signal: NodeJS.Signals) {
  cleanUpEverything();
  // What the signal would have done without a handler.
  process.kill(process.pid, signal);
}

export function onCleanup(step: () => void) {
  if (steps.length === 0) {
    process.once("exit", cleanUpEverything);
    for (const s of SIGNALS) process.once(s, onSignal);
  }
  steps.push(step);
}

export function cleanUpEverything() {
  for (const step of steps.splice(0).reverse()) {
    try {
      step();
    } catch (error) {
      console.error("cluster test cleanup:", error);
    }
  }
  process.off("exit", cleanUpEverything);
  for (const s of SIGNALS) process.off(s, onSignal);
}
