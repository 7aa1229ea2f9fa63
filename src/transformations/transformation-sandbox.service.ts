import {
  Inject,
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
  Optional,
} from '@nestjs/common';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Piscina } from 'piscina';
import {
  TRANSFORMATION_CPU_BUDGET_MS,
  TRANSFORMATION_MAX_CODE_BYTES,
  TIMEOUT_MESSAGE,
  WORKER_STOPPED_MESSAGE,
  formatBytes,
} from './transformation.constants';
import {
  TransformationEngine,
  type TransformationTask,
  type TransformationTaskResult,
} from './transformation-engine';
import { TransformationBusyError } from './transformation-errors';
import {
  errorOutcome,
  failure,
  fromWire,
  type TransformationCode,
  type TransformationFailure,
  type TransformationInput,
  type TransformationOutcome,
} from './transformation-outcome';

/** Most worker threads, whatever the machine. */
const MAX_THREADS = 4;
/** Calls queued or running per thread, at most, before {@link TransformationBusyError}. */
const CALLS_PER_THREAD = 16;
/**
 * The share of the threads' time slow-lane tasks may take, over windows of
 * {@link SLOW_WINDOW_MS}: the process's budget for code that is slow (or hostile), so that it
 * cannot take a core from the rest of the process.
 */
const SLOW_SHARE = 0.25;
const SLOW_WINDOW_MS = 1_000;
/** The longest a slow-lane call is told to wait before it asks again, in ms. */
const SLOW_MAX_WAIT_MS = 10_000;
/** The engine's wall time one task of {@link TransformationSandbox.runMany} may take, in ms. */
const MANY_BUDGET_MS = 20;
/** Calls of one code key queued or running, at most. */
const CALLS_PER_KEY = 4;
/**
 * A call of a key whose last call took less than this (ms; the handler's call, not the making of
 * its runtime) goes in the fast lane.
 */
const FAST_CALL_MS = 5;
/** Fast-lane calls started in a row while slow ones wait, before one slow call goes. */
const FAST_STREAK = 4;
/** Code keys whose last call time is remembered (the oldest are forgotten first). */
const REMEMBERED_KEYS = 10_000;
/**
 * A thread that has not answered a call after this long is stopped (and replaced): the engine's
 * own 50 ms deadline is checked by QuickJS's interpreter, and a few native loops never check it
 * (`Array.prototype.indexOf` over a length of 2^53, a default `sort` of a large array).
 */
const WATCHDOG_MS = 1_000;
/** Each worker thread's V8 limits, in MiB (QuickJS's WebAssembly memory is outside the heap). */
const WORKER_OLD_GENERATION_MB = 64;
const WORKER_YOUNG_GENERATION_MB = 8;
const WORKER_STACK_MB = 8;

/** The Nest token of {@link TransformationSandboxOptions}, optional. */
export const TRANSFORMATION_SANDBOX_OPTIONS = 'TRANSFORMATION_SANDBOX_OPTIONS';

/** How a {@link TransformationSandbox} runs; every field has a default. */
export interface TransformationSandboxOptions {
  /** Worker threads (default: the machine's cores − 1, at least 1, at most 4). */
  threads?: number;
  /**
   * Run calls in the calling thread, not in worker threads: for unit tests only, where a call of
   * 50 ms blocks the test's event loop and no watchdog runs. Also what happens when this file runs
   * as TypeScript (the tests) and dist/ has no compiled worker.
   */
  inThread?: boolean;
}

/** A task waiting for, or holding, a thread. */
interface Waiting {
  task: TransformationTask;
  /** The code key counted against the budget, or null for a check or a warm-up (not counted). */
  key: string | null;
  lane: Lane;
  watchdogMs: number;
  resolve: (result: TransformationTaskResult) => void;
  reject: (error: unknown) => void;
}

type Lane = 'fast' | 'slow';

/**
 * The compiled worker file: beside this file in dist/; when this file runs as TypeScript (the
 * tests), the one the build put in dist/ (the e2e setup builds it), if any.
 */
function workerFile(): string | null {
  const file = __filename.endsWith('.ts')
    ? resolve(__dirname, '../../dist/transformations/transformation.worker.js')
    : join(__dirname, 'transformation.worker.js');
  return existsSync(file) ? file : null;
}

function codeTooLarge(bytes: number): TransformationFailure {
  return failure(
    'code_too_large',
    `the code is ${formatBytes(bytes)}; at most ${formatBytes(TRANSFORMATION_MAX_CODE_BYTES)}`,
  );
}

/**
 * Per-endpoint transformations (docs/webhooks.md#transformations): customer JavaScript
 * `function handler(webhook) { …; return webhook; }` run in QuickJS (WebAssembly) with no I/O,
 * in a pool of worker threads (the machine's cores − 1, 1 to 4), never on the event loop
 * (docs/security.md#transformation-sandbox).
 *
 * The process's budget: at most threads × 16 calls queued or running, of which at most half for
 * keys not known to be fast (a key is fast when its last call took under 5 ms: those go in a lane
 * of their own, served first, so slow endpoints cannot starve fast ones), and at most 4 per code
 * key. Past that, {@link run} throws {@link TransformationBusyError} at once. A thread that does not
 * answer within 1 s is stopped and replaced; a thread that crashes is replaced, its call failing
 * with "the transformation's worker stopped".
 */
@Injectable()
export class TransformationSandbox implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TransformationSandbox.name);
  private pool: Piscina<TransformationTask, TransformationTaskResult> | null = null;
  private local: TransformationEngine | null = null;
  private threads = 1;
  private started = false;
  private closed = false;
  private running = 0;
  private fastStreak = 0;
  private readonly lanes: Record<Lane, Waiting[]> = { fast: [], slow: [] };
  /** Budgeted calls queued or running, per lane. */
  private readonly inLane: Record<Lane, number> = { fast: 0, slow: 0 };
  private readonly perKey = new Map<string, number>();
  private readonly lastCallMs = new Map<string, number>();
  /** The slow lane's time spent in the current window ({@link slowTimeLeft}). */
  private readonly slowWindow = { startedAt: 0, spentMs: 0 };
  private slowTimer: NodeJS.Timeout | null = null;

  constructor(
    @Optional()
    @Inject(TRANSFORMATION_SANDBOX_OPTIONS)
    private readonly options: TransformationSandboxOptions | null = null,
  ) {}

  /** Starts the worker threads and warms each one (its QuickJS module loaded, its code hot). */
  onModuleInit(): void {
    this.start();
  }

  /** Stops the worker threads; calls still queued fail, later calls throw {@link TransformationBusyError}. */
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.slowTimer !== null) clearTimeout(this.slowTimer);
    for (const lane of ['fast', 'slow'] as const) {
      for (const waiting of this.lanes[lane].splice(0)) {
        this.release(waiting);
        waiting.reject(new Error('the transformation sandbox stopped'));
      }
    }
    const pool = this.pool;
    this.pool = null;
    this.local?.close();
    await pool?.destroy();
  }

  /** Whether calls run in worker threads (false: in the calling thread, unit tests only). */
  get usesWorkers(): boolean {
    this.start();
    return this.pool !== null;
  }

  /** The worker threads (1 when calls run in the calling thread). */
  get threadCount(): number {
    this.start();
    return this.threads;
  }

  /**
   * Checks code on save (docs/webhooks.md#transformations): its size, its syntax, that it defines
   * a function `handler`, then one trial run per sample input, in which a budget failure
   * (timeout, memory, output, stack) refuses the code; a plain throw or a wrong return shape
   * does not (it may depend on the data). Checks wait their turn for a thread and are not counted
   * against {@link run}'s budget. Never throws.
   *
   * @param code the customer's JavaScript.
   * @param samples events shaped as the endpoint would get them (a few: each may take 50 ms).
   * @returns the first problem, or null.
   */
  async check(code: string, samples: TransformationInput[]): Promise<TransformationFailure | null> {
    const bytes = Buffer.byteLength(code, 'utf8');
    if (bytes > TRANSFORMATION_MAX_CODE_BYTES) return codeTooLarge(bytes);
    if (this.closed) return failure('throw', WORKER_STOPPED_MESSAGE);
    const watchdogMs = WATCHDOG_MS + (samples.length + 1) * TRANSFORMATION_CPU_BUDGET_MS * 2;
    try {
      const result = await this.enqueue({ op: 'check', code, samples }, null, 'slow', watchdogMs);
      return result.problem ?? null;
    } catch (error) {
      return this.stopped(error);
    }
  }

  /**
   * Runs one call: `code`'s handler on `input`, in the key's runtime on one of the threads.
   * Untransformed deliveries never call this.
   *
   * @returns the request, `cancelled` (the handler returned null), or an `error` whose failure
   * says why (docs/webhooks.md#transformations).
   * @throws TransformationBusyError (as a rejected promise, at once, before anything runs) when
   * the process's budget is used up; never anything else.
   */
  run(code: TransformationCode, input: TransformationInput): Promise<TransformationOutcome> {
    const bytes = Buffer.byteLength(code.code, 'utf8');
    if (bytes > TRANSFORMATION_MAX_CODE_BYTES) {
      return Promise.resolve(errorOutcome(codeTooLarge(bytes)));
    }
    const last = this.lastCallMs.get(code.key);
    const lane: Lane = last !== undefined && last < FAST_CALL_MS ? 'fast' : 'slow';
    const waitMs = this.busyFor(code.key, lane);
    if (waitMs !== null) return Promise.reject(new TransformationBusyError(waitMs));
    return this.enqueue({ op: 'run', code, input }, code.key, lane, WATCHDOG_MS).then(
      (result) => {
        this.remember(code.key, result.callMs ?? result.elapsedMs);
        return fromWire(result.outcome ?? errorOutcome(failure('throw', WORKER_STOPPED_MESSAGE)));
      },
      (error: unknown) => {
        this.remember(code.key, WATCHDOG_MS);
        return errorOutcome(this.stopped(error));
      },
    );
  }

  /** How long to wait when a call of `key` in `lane` would pass the budget, else null. */
  private busyFor(key: string, lane: Lane): number | null {
    this.start();
    if (this.closed) return 1_000;
    const total = this.threads * CALLS_PER_THREAD;
    const inFlight = this.inLane.fast + this.inLane.slow;
    const drainMs = (calls: number) =>
      Math.min(
        1_000,
        Math.max(250, Math.ceil(calls / this.threads) * TRANSFORMATION_CPU_BUDGET_MS),
      );
    if (inFlight >= total) return drainMs(inFlight);
    // The slow lane drains at SLOW_SHARE of the threads' time: its callers wait as long as the
    // calls ahead of them take to go at that pace (1 to 10 s), so that a crowd of slow endpoints
    // is not put back and woken again several times a second.
    const slowDrainMs = () =>
      Math.min(
        SLOW_MAX_WAIT_MS,
        Math.max(
          SLOW_WINDOW_MS,
          (this.inLane.slow * TRANSFORMATION_CPU_BUDGET_MS) / (SLOW_SHARE * this.threads),
        ),
      );
    if (lane === 'slow' && this.inLane.slow >= total / 2) return slowDrainMs();
    // Only a key known to be slow waits for the slow lane's time: a key not seen yet (a new
    // version's first call) goes, bounded by the lane's count above.
    if (lane === 'slow' && this.lastCallMs.has(key) && this.slowTimeLeft() <= 0) {
      return slowDrainMs();
    }
    if ((this.perKey.get(key) ?? 0) >= CALLS_PER_KEY) return drainMs(CALLS_PER_KEY);
    return null;
  }

  private remember(key: string, elapsedMs: number): void {
    this.lastCallMs.delete(key);
    this.lastCallMs.set(key, elapsedMs);
    if (this.lastCallMs.size > REMEMBERED_KEYS) {
      this.lastCallMs.delete(this.lastCallMs.keys().next().value as string);
    }
  }

  /** The failure of a task that did not answer: stopped by the watchdog, or its thread crashed. */
  private stopped(error: unknown): TransformationFailure {
    if (error instanceof WatchdogExpired) return failure('timeout', TIMEOUT_MESSAGE);
    this.logger.warn(`a transformation task failed: ${String(error)}`);
    return failure('throw', WORKER_STOPPED_MESSAGE);
  }

  /**
   * Runs `code`'s handler on each of `inputs` (a batch's deliveries to one endpoint), as
   * {@link run} does one, but in as few thread tasks as fit: a key known to be fast sends its
   * inputs together, up to {@link MANY_BUDGET_MS} of the engine's time a task (the rest go in
   * the next task); any other key one input a task. The whole batch counts as one call of its key
   * against the budget while it runs.
   *
   * @returns the outcomes, in the order of `inputs`.
   * @throws TransformationBusyError (at once, before anything runs) when the process's budget is
   * used up; never anything else.
   */
  async runMany(
    code: TransformationCode,
    inputs: TransformationInput[],
  ): Promise<TransformationOutcome[]> {
    if (inputs.length <= 1) return Promise.all(inputs.map((input) => this.run(code, input)));
    const bytes = Buffer.byteLength(code.code, 'utf8');
    if (bytes > TRANSFORMATION_MAX_CODE_BYTES) {
      return inputs.map(() => errorOutcome(codeTooLarge(bytes)));
    }
    const outcomes: TransformationOutcome[] = [];
    while (outcomes.length < inputs.length) {
      const last = this.lastCallMs.get(code.key);
      const lane: Lane = last !== undefined && last < FAST_CALL_MS ? 'fast' : 'slow';
      const rest = inputs.slice(outcomes.length, lane === 'fast' ? undefined : outcomes.length + 1);
      // The first task is refused as a whole; later ones wait their turn (the batch has begun).
      const waitMs = this.busyFor(code.key, lane);
      if (waitMs !== null) {
        if (outcomes.length === 0) throw new TransformationBusyError(waitMs);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        continue;
      }
      const watchdogMs = WATCHDOG_MS + MANY_BUDGET_MS;
      try {
        const result = await this.enqueue(
          { op: 'runMany', code, inputs: rest, budgetMs: MANY_BUDGET_MS },
          code.key,
          lane,
          watchdogMs,
        );
        this.remember(code.key, result.callMs ?? result.elapsedMs);
        const got = result.outcomes ?? [];
        if (got.length === 0) throw new Error('the transformation task answered nothing');
        for (const outcome of got) outcomes.push(fromWire(outcome));
      } catch (error) {
        this.remember(code.key, WATCHDOG_MS);
        outcomes.push(errorOutcome(this.stopped(error)));
      }
    }
    return outcomes;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    const filename = this.options?.inThread === true ? null : workerFile();
    if (filename === null) {
      if (this.options?.inThread !== true && !__filename.endsWith('.ts')) {
        throw new Error(`the transformation worker is missing beside ${__filename}`);
      }
      this.local = new TransformationEngine();
      this.threads = 1;
      return;
    }
    this.threads =
      this.options?.threads ?? Math.max(1, Math.min(MAX_THREADS, availableParallelism() - 1));
    this.pool = new Piscina<TransformationTask, TransformationTaskResult>({
      filename,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: {
        maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB,
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
        stackSizeMb: WORKER_STACK_MB,
      },
    });
    for (let i = 0; i < this.threads; i++) {
      this.enqueue({ op: 'warm' }, null, 'slow', WATCHDOG_MS * 5).catch(() => undefined);
    }
  }

  private enqueue(
    task: TransformationTask,
    key: string | null,
    lane: Lane,
    watchdogMs: number,
  ): Promise<TransformationTaskResult> {
    this.start();
    return new Promise((resolve, reject) => {
      if (key !== null) {
        this.inLane[lane] += 1;
        this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
      }
      this.lanes[lane].push({ task, key, lane, watchdogMs, resolve, reject });
      this.pump();
    });
  }

  /** Starts waiting tasks while a thread is free: fast lane first, one slow task every few. */
  private pump(): void {
    while (this.running < this.threads) {
      const { fast, slow } = this.lanes;
      // Slow tasks (checks and warm-ups included) wait while the window's slow time is spent.
      const slowMayGo = slow.length > 0 && this.slowTimeLeft() > 0;
      let next: Waiting | undefined;
      if (fast.length > 0 && (!slowMayGo || this.fastStreak < FAST_STREAK)) {
        this.fastStreak += 1;
        next = fast.shift();
      } else if (slowMayGo) {
        this.fastStreak = 0;
        next = slow.shift();
      }
      if (next === undefined) {
        if (slow.length > 0) this.pumpAtNextWindow();
        return;
      }
      this.running += 1;
      void this.dispatch(next);
    }
  }

  /**
   * The slow lane's time left in the current window, in ms: slow calls may keep the threads busy
   * at most {@link SLOW_SHARE} of the time, so that endpoints whose code takes its whole budget
   * leave the machine's cores to the rest of the process (the untransformed deliveries, the API).
   */
  private slowTimeLeft(): number {
    const now = performance.now();
    if (now - this.slowWindow.startedAt >= SLOW_WINDOW_MS) {
      this.slowWindow.startedAt = now;
      this.slowWindow.spentMs = 0;
    }
    return SLOW_SHARE * SLOW_WINDOW_MS * this.threads - this.slowWindow.spentMs;
  }

  /** Pumps again when the current slow window ends. */
  private pumpAtNextWindow(): void {
    if (this.slowTimer !== null || this.closed) return;
    const waitMs = Math.max(1, SLOW_WINDOW_MS - (performance.now() - this.slowWindow.startedAt));
    this.slowTimer = setTimeout(() => {
      this.slowTimer = null;
      this.pump();
    }, waitMs);
  }

  private async dispatch(waiting: Waiting): Promise<void> {
    const started = performance.now();
    try {
      waiting.resolve(await this.execute(waiting));
    } catch (error) {
      waiting.reject(error);
    } finally {
      // The slow lane's time: what its calls that were slow took (a first call that was quick,
      // making its runtime included, does not count).
      const tookMs = performance.now() - started;
      // Checks and warm-ups (no key) are not calls of a delivery: they never count.
      if (waiting.key !== null && waiting.lane === 'slow' && tookMs >= FAST_CALL_MS) {
        this.slowWindow.spentMs += tookMs;
      }
      this.running -= 1;
      this.release(waiting);
      this.pump();
    }
  }

  private release(waiting: Waiting): void {
    if (waiting.key === null) return;
    this.inLane[waiting.lane] -= 1;
    const count = (this.perKey.get(waiting.key) ?? 1) - 1;
    if (count === 0) this.perKey.delete(waiting.key);
    else this.perKey.set(waiting.key, count);
  }

  private async execute(waiting: Waiting): Promise<TransformationTaskResult> {
    const local = this.local;
    if (local !== null) {
      await local.ready();
      return local.perform(waiting.task);
    }
    const pool = this.pool;
    if (pool === null) throw new Error('the transformation sandbox stopped');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new WatchdogExpired()), waiting.watchdogMs);
    try {
      return await pool.run(waiting.task, { signal: controller.signal });
    } catch (error) {
      throw controller.signal.aborted ? new WatchdogExpired() : error;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A task stopped by the watchdog (its thread was terminated). */
class WatchdogExpired extends Error {
  constructor() {
    super('the transformation did not answer in time');
  }
}
