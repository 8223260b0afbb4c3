type Watched = { promise: Promise<void>; stop(): Promise<void> };

export type WatchdogOptions = {
  delaysMs: readonly number[];
  stableMs: number;
  onFatal: (error: unknown) => void;
  log: (message: string, error?: unknown) => void;
};

/** graphile-worker's runner can stop by itself, and nothing would notice while the instance looked healthy. */
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

  get running(): T | undefined {
    return this.current;
  }

  get healthy(): boolean {
    return !this.gaveUp && (!this.watching || this.current !== undefined);
  }

  /** Its failure is the caller's: the server does not start. */
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
