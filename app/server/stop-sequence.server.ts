// The stop of a process runs in an order (app/server/lifecycle.server.ts), and every step runs even
// when one before it fails: a task runner whose stop rejects must not leave the event streams open,
// the listener accepting and the database pool connected until the force-exit timer fires.

export type StopStep = { name: string; run(): unknown };

export type StepFailure = { step: string; error: unknown };

/** Runs the steps in order; a failure is reported and the next step still runs. */
export async function runStopSteps(
  steps: readonly StopStep[],
  onFailure: (step: string, error: unknown) => void,
): Promise<StepFailure[]> {
  const failures: StepFailure[] = [];
  for (const step of steps) {
    try {
      await step.run();
    } catch (error) {
      failures.push({ step: step.name, error });
      try {
        onFailure(step.name, error);
      } catch {} // a logger that throws must not end the sequence either
    }
  }
  return failures;
}
