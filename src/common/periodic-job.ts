import type { LoggerService } from '@nestjs/common';

/** How a {@link PeriodicJob} runs. */
export interface PeriodicJobOptions {
  /** The job in its log line: a failed run logs `<name> failed: <error message>`. */
  name: string;
  /** Time from one tick to the next, in ms (a tick that finds a run under way does nothing). */
  intervalMs: number;
  /** Whether {@link PeriodicJob.start} ticks at once too; otherwise the first tick is after `intervalMs`. */
  runAtStart?: boolean;
  /** The owner's logger, for that line. */
  logger: Pick<LoggerService, 'warn' | 'error'>;
  /** The line's level: `warn` (the default) or `error`. */
  failureLevel?: 'warn' | 'error';
  /**
   * What a tick does: the owner's public "one pass" method, which runs its work through
   * {@link PeriodicJob.run}. What it returns is ignored.
   */
  tick: () => Promise<unknown>;
}

/**
 * A pass that a worker process repeats on a timer (docs/reliability.md#periodic-jobs): the
 * delivery sweeper, the failing-endpoint monitor, the recovery runner, retention and the
 * spreadsheet import runner. It holds what they share and nothing of what they do:
 * - a timer every `intervalMs` ms between {@link start} and {@link stop}, `unref`'d so that it
 *   never keeps a process alive;
 * - one run at a time in this process ({@link run}): a tick or a call made while a run is under
 *   way starts nothing. Between processes the owner's lease or lock decides, as before;
 * - a run that fails is logged (`<name> failed: <message>`) and resolves to the owner's
 *   fallback value: never a rejection, never an unhandled one from the timer;
 * - {@link stop} clears the timer and resolves once the run under way has ended, so a shutdown
 *   that awaits it leaves nothing half done. The owner's pass may read {@link started} or
 *   {@link stopped} between its steps to end early.
 *
 * @typeParam T what one run resolves to (a count, a report, nothing).
 */
export class PeriodicJob<T> {
  private timer?: NodeJS.Timeout;
  private current?: Promise<T>;
  private state: 'new' | 'started' | 'stopped' = 'new';

  constructor(private readonly options: PeriodicJobOptions) {}

  /** Whether the timer runs: after {@link start}, before {@link stop}. */
  get started(): boolean {
    return this.timer !== undefined;
  }

  /** Whether {@link stop} was called and {@link start} not since (false before the first start). */
  get stopped(): boolean {
    return this.state === 'stopped';
  }

  /** Whether a run is under way in this process. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Starts the timer (and a first tick with `runAtStart`). A no-op while it runs already. */
  start(): void {
    if (this.timer) return;
    this.state = 'started';
    this.timer = setInterval(() => {
      if (!this.current) void this.tick();
    }, this.options.intervalMs);
    this.timer.unref();
    if (this.options.runAtStart) void this.tick();
  }

  /**
   * Stops the timer; {@link start} may start it again.
   * @returns when the run under way, if any, has ended. Never rejects.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.state = 'stopped';
    await this.current;
  }

  /**
   * Runs `task` unless a run is under way: then it starts nothing, and returns `ifBusy()` when
   * given, else the promise of the run under way.
   * @param onFailure the value a failed run resolves to, after the failure is logged.
   * @returns what the run resolved to. Never rejects (unless a callback throws).
   */
  run(task: () => Promise<T>, onFailure: (error: unknown) => T, ifBusy?: () => T): Promise<T> {
    if (this.current && ifBusy) return Promise.resolve(ifBusy());
    this.current ??= this.attempt(task, onFailure).finally(() => (this.current = undefined));
    return this.current;
  }

  private async attempt(task: () => Promise<T>, onFailure: (error: unknown) => T): Promise<T> {
    try {
      return await task();
    } catch (error) {
      this.logFailure(error);
      return onFailure(error);
    }
  }

  private async tick(): Promise<void> {
    try {
      await this.options.tick();
    } catch (error) {
      this.logFailure(error);
    }
  }

  private logFailure(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.options.logger[this.options.failureLevel ?? 'warn'](
      `${this.options.name} failed: ${message}`,
    );
  }
}
