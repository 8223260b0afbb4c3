/**
 * What the cluster test started (processes, a PostgreSQL cluster, temporary directories) is
 * ended by afterAll and, should the worker die first, by the process's 'exit' handler: both run
 * these synchronous steps, newest first, each once.
 */
const steps: (() => void)[] = [];

export function onCleanup(step: () => void) {
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
}

process.once("exit", cleanUpEverything);
