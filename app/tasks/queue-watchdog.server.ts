/** What the watchdog keeps running: graphile-worker's Runner has this shape. */
type Watched = { promise: Promise<void>; stop(): Promise<void> };

export type WatchdogOptions = {
  /** The wait before each restart in a row; when the last one fails too, `onFatal`. */
  delaysMs: readonly number[];
  /** A runner that ran this long before it stopped begins a new row of restarts. */
  stableMs: number;
  onFatal: (error: unknown) => void;
  log: (message: string, error?: unknown) => void;
};

/**
 * Keeps the queue's worker running. graphile-worker's runner can stop by itself (a breaking
 * migration notice, a fatal error), and nothing would notice: tasks would wait forever while the
 * instance looked healthy. A runner that stops without `release()` makes `healthy` false and is
 * started again with backoff; when that keeps failing, `onFatal` lets a supervisor restart the
 * whole process instead.
 */
export class Watchdog<T extends Watched> {
  private current: T | undefined;
  private startedAt = 0;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watching = false;
  private gaveUp = false;

  constructor(
    private readonly launch: () => Promise<T>,
    private readonly options: WatchdogOptions,
  ) {}

  /** The runner now running, if any. */
  get running(): T | undefined {
    return this.current;
  }

  /** False while a runner should be running and is not (between a stop and its restart). */
  get healthy(): boolean {
    return !this.gaveUp && (!this.watching || this.current !== undefined);
  }

  /** Starts the first runner; its failure is the caller's (the server does not start). */
  async start(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    this.gaveUp = false;
    this.failures = 0;
    try {
      await this.launchOnce();
    } catch (error) {
      this.watching = false;
      throw error;
    }
  }

  /** Stops watching and hands over the runner, for the caller to stop as it sees fit. */
  release(): T | undefined {
    this.watching = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    const current = this.current;
    this.current = undefined;
    return current;
  }

  private async launchOnce() {
    const runner = await this.launch();
    if (!this.watching) {
      // Released while this one was starting: nobody else knows of it.
      await runner.stop().catch(() => {});
      return;
    }
    this.current = runner;
    this.startedAt = Date.now();
    runner.promise.then(
      () => this.ended(runner, new Error("the queue's runner stopped")),
      (error) => this.ended(runner, error),
    );
  }

  private ended(runner: T, error: unknown) {
    if (this.current !== runner || !this.watching) return;
    this.current = undefined;
    if (Date.now() - this.startedAt >= this.options.stableMs) this.failures = 0;
    this.options.log("[queue] the task runner stopped by itself; restarting it", error);
    this.restartLater(error);
  }

  private restartLater(error: unknown) {
    const delay = this.options.delaysMs[this.failures++];
    if (delay === undefined) {
      this.watching = false;
      this.gaveUp = true;
      this.options.onFatal(error);
      return;
    }
    // Not unref'd: in a worker process this timer may be all that keeps it alive until the restart.
    this.timer = setTimeout(async () => {
      this.timer = undefined;
      if (!this.watching) return;
      try {
        await this.launchOnce();
      } catch (e) {
        this.options.log(`[queue] restarting the task runner failed (${this.failures} in a row)`, e);
        this.restartLater(e);
      }
    }, delay);
  }
}
