import { createRequire } from 'node:module';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { PRELUDE_FILE_NAME, SANDBOX_PRELUDE } from './sandbox-prelude';
import {
  BUDGET_FAILURE_KINDS,
  MEMORY_MESSAGE,
  STACK_MESSAGE,
  TIMEOUT_MESSAGE,
  TRANSFORMATION_CPU_BUDGET_MS,
  TRANSFORMATION_FILE_NAME,
  TRANSFORMATION_MAX_STACK_BYTES,
  TRANSFORMATION_MEMORY_LIMIT_BYTES,
} from './transformation.constants';
import {
  errorOutcome,
  failure,
  type TransformationCode,
  type TransformationFailure,
  type TransformationInput,
  type WireOutcome,
} from './transformation-outcome';
import { readSerialisedResult } from './transformation-result';

/** What this file uses of WebAssembly's JavaScript API (the project's TypeScript lib has no DOM). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
};

const load = createRequire(__filename);
type FfiClass = Awaited<ReturnType<QuickJSSyncVariant['importFFI']>>;
type ModuleLoader = Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>>;

/**
 * QuickJS's release-sync WebAssembly build (`@jitl/quickjs-wasmfile-release-sync`), its two parts
 * loaded with `require`: the package's own variant loads its Emscripten module with a dynamic
 * `import()`, which Jest's CommonJS sandbox refuses.
 */
const RELEASE_SYNC: QuickJSSyncVariant = {
  type: 'sync',
  importFFI: () =>
    Promise.resolve(
      (load('@jitl/quickjs-wasmfile-release-sync/ffi') as { QuickJSFFI: FfiClass }).QuickJSFFI,
    ),
  importModuleLoader: () =>
    Promise.resolve(load('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as ModuleLoader),
};

/** Code keys whose runtime one engine (one thread) keeps, least recently used first out. */
export const RUNTIMES_PER_THREAD = 64;
/**
 * The most WebAssembly memory one engine (one thread, all its runtimes) can ever have: its
 * `WebAssembly.Memory` is made with this maximum, so an allocation past it fails inside QuickJS
 * (an "out of memory" the call reports as kind `memory`) instead of growing the process.
 *
 * It is needed: in this build QuickJS's own limit (`setMemoryLimit`) counts only a few bytes per
 * allocation (the WebAssembly C library has no `malloc_usable_size`), so it refuses one allocation
 * larger than 16 MiB, or millions of small ones, but let sixty 8 MB typed arrays through.
 */
export const ENGINE_MEMORY_LIMIT_BYTES = 128 * 1024 * 1024;
/**
 * The WebAssembly memory of one engine past which, after a call, every runtime is disposed and
 * the module replaced by a new one with a new memory: WebAssembly memory grows and never shrinks,
 * so this keeps a thread's memory near what its runtimes need (64 of ~100 KiB, and one call's
 * 16 MiB) after a call that used much more.
 */
export const ENGINE_MEMORY_CEILING_BYTES = 64 * 1024 * 1024;
/** WebAssembly pages are 64 KiB. */
const WASM_PAGE_BYTES = 64 * 1024;
/** QuickJS's build starts with 16 MiB of memory (its data, its 5 MiB stack and the heap). */
const ENGINE_INITIAL_MEMORY_BYTES = 16 * 1024 * 1024;
/** Wall time the prelude may take in a new runtime (it freezes every intrinsic: about 1 ms). */
const PRELUDE_BUDGET_MS = 1_000;
/** Wall time to read a thrown value once the call's budget is spent (its getters run). */
const DESCRIBE_BUDGET_MS = 10;
/** The message when the WebAssembly engine itself failed (its module is then replaced). */
const ENGINE_STOPPED_MESSAGE = "the transformation's engine stopped";

/** One task of the sandbox's worker threads (`transformation.worker.ts`). */
export type TransformationTask =
  | { op: 'run'; code: TransformationCode; input: TransformationInput }
  /**
   * Calls of one code on several inputs in order, as many as fit in `budgetMs` of the engine's
   * wall time (the first always runs; each call still has its own 50 ms budget).
   */
  | { op: 'runMany'; code: TransformationCode; inputs: TransformationInput[]; budgetMs: number }
  | { op: 'check'; code: string; samples: TransformationInput[] }
  | { op: 'warm' };

/** What a {@link TransformationTask} answers. */
export interface TransformationTaskResult {
  /** A `run`'s outcome. */
  outcome?: WireOutcome;
  /** A `runMany`'s outcomes, in the order of its inputs: those not run (out of time) left out. */
  outcomes?: WireOutcome[];
  /** A `check`'s first problem, or null. */
  problem?: TransformationFailure | null;
  /** Wall time the engine spent on the task, in milliseconds. */
  elapsedMs: number;
  /**
   * A `run`'s wall time in the handler's call alone (without making the key's runtime), in
   * milliseconds; null when the call did not start (the code failed to evaluate).
   */
  callMs?: number | null;
}

/**
 * The interrupt handler's state for the current call: its deadline (`performance.now()` ms) and
 * the engine's memory size when it started.
 */
interface Budget {
  deadline: number;
  /** The deadline passed. */
  interrupted: boolean;
  memoryAtStart: number;
  /** The engine's memory grew by more than the limit during the call. */
  overMemory: boolean;
}

/** Starts a budget of `ms` for what runs next in a runtime of `memory`. */
function startBudget(budget: Budget, memory: WasmMemory, ms: number): void {
  budget.deadline = performance.now() + ms;
  budget.interrupted = false;
  budget.overMemory = false;
  budget.memoryAtStart = memory.buffer.byteLength;
}

/**
 * Whether what ran since {@link startBudget} used more than the memory limit, as far as the engine
 * can tell: the WebAssembly memory grows only once the free memory in it is used up, so growth of
 * more than 16 MiB during one call means the call held more than that (QuickJS's own count misses
 * large allocations, see {@link ENGINE_MEMORY_LIMIT_BYTES}).
 */
function grewPastLimit(budget: Budget, memory: WasmMemory): boolean {
  return (
    budget.overMemory ||
    memory.buffer.byteLength - budget.memoryAtStart > TRANSFORMATION_MEMORY_LIMIT_BYTES
  );
}

/** A code key's runtime: one QuickJS runtime and context with the code evaluated once. */
interface Compiled {
  code: string;
  memory: WasmMemory;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  budget: Budget;
  /** The prelude's functions and the customer's handler. */
  handles: {
    call: QuickJSHandle;
    serialise: QuickJSHandle;
    describe: QuickJSHandle;
    handler: QuickJSHandle;
  };
}

/** A key whose code failed in a way the same code always will (syntax, no handler, a throw). */
interface Refused {
  code: string;
  failure: TransformationFailure;
}

/** What a thrown value reads as, from the prelude's `describe`. */
type Described = { name: string; message: string; stack: string } | { value: string };

/** 1-based line and column of the first frame in the customer's file, if any. */
function positionIn(stack: string | undefined): [number | null, number | null] {
  const match =
    stack === undefined
      ? null
      : /(?:\(|at )transformation\.js:(\d+):(\d+)\)?/.exec(stack.replace(/\r/g, ''));
  return match ? [Number(match[1]), Number(match[2])] : [null, null];
}

/** Whether an exception raised by the host side of QuickJS is the native stack running out. */
function isNativeStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/**
 * The transformation engine of one thread (docs/security.md#transformation-sandbox): QuickJS
 * compiled to WebAssembly, with no module loader and no host function. For each code key it
 * keeps one runtime (memory limit 16 MiB, stack limit 256 KiB, an interrupt handler with a
 * per-call deadline of 50 ms that also stops a call once the engine's memory grew by more than
 * 16 MiB) and one context in which the prelude (`sandbox-prelude.ts`) and
 * then the code were evaluated once, in an LRU of {@link RUNTIMES_PER_THREAD}; a call costs the
 * handler's own work, not a fresh context's. A runtime is disposed and forgotten after a
 * timeout, memory or stack failure (its state may be broken), and the whole WebAssembly module
 * is replaced when QuickJS itself fails (a native stack overflow, an abort) or its memory passes
 * {@link ENGINE_MEMORY_CEILING_BYTES}; it can never pass {@link ENGINE_MEMORY_LIMIT_BYTES}. Synchronous once {@link ready}: the sandbox runs it in
 * worker threads, so a 50 ms call never blocks the event loop.
 */
export class TransformationEngine {
  private module: QuickJSWASMModule | null = null;
  private loading: Promise<QuickJSWASMModule> | null = null;
  private readonly cache = new Map<string, Compiled | Refused>();
  /** The last call's own wall time (ms), for {@link TransformationTaskResult.callMs}. */
  private lastCallMs: number | null = null;

  /** @param runtimes most code keys kept, least recently used first out. */
  constructor(private readonly runtimes = RUNTIMES_PER_THREAD) {}

  /** Loads the WebAssembly module (about 10 ms) if it is not loaded. */
  async ready(): Promise<void> {
    if (this.module !== null) return;
    this.loading ??= newQuickJSWASMModuleFromVariant(
      newVariant(RELEASE_SYNC, {
        wasmMemory: new WebAssembly.Memory({
          initial: ENGINE_INITIAL_MEMORY_BYTES / WASM_PAGE_BYTES,
          maximum: ENGINE_MEMORY_LIMIT_BYTES / WASM_PAGE_BYTES,
        }),
      }),
    );
    const loading = this.loading;
    try {
      const module = await loading;
      this.module ??= module;
    } finally {
      if (this.loading === loading) this.loading = null;
    }
  }

  /**
   * Runs one task (after {@link ready}).
   *
   * @returns a `run`'s outcome or a `check`'s problem, with the engine's wall time.
   */
  perform(task: TransformationTask): TransformationTaskResult {
    const started = performance.now();
    const result: TransformationTaskResult = { elapsedMs: 0 };
    if (task.op === 'run') {
      this.lastCallMs = null;
      result.outcome = this.run(task.code, task.input);
      result.callMs = this.lastCallMs;
    } else if (task.op === 'runMany') {
      result.outcomes = [];
      let slowest = 0;
      for (const input of task.inputs) {
        this.lastCallMs = null;
        result.outcomes.push(this.run(task.code, input));
        slowest = Math.max(slowest, this.lastCallMs ?? TRANSFORMATION_CPU_BUDGET_MS);
        if (performance.now() - started >= task.budgetMs) break;
      }
      result.callMs = slowest;
    } else if (task.op === 'check') result.problem = this.check(task.code, task.samples);
    else this.warm();
    result.elapsedMs = performance.now() - started;
    return result;
  }

  /**
   * One call of `code` on `input`, in the key's runtime (made, and the code evaluated, if the
   * key has none). Never throws.
   */
  run(code: TransformationCode, input: TransformationInput): WireOutcome {
    try {
      const entry = this.entryFor(code);
      if ('failure' in entry) return errorOutcome(entry.failure);
      const { outcome, broken } = this.call(entry, input);
      if (broken) this.forget(code.key);
      return outcome;
    } catch (error) {
      return errorOutcome(this.engineFailed(error));
    } finally {
      this.recycleIfLarge();
    }
  }

  /**
   * The check on save (docs/webhooks.md#transformations): evaluates `code` in a runtime of its
   * own, requires a `handler` function, then makes one trial run per sample, in which only a
   * budget failure (timeout, memory, output, stack) refuses the code: a throw or a wrong shape
   * may depend on the data. The size is the caller's to check. Never throws.
   *
   * @returns the first problem, or null.
   */
  check(code: string, samples: TransformationInput[]): TransformationFailure | null {
    let compiled: Compiled | null = null;
    try {
      const made = this.compile(code);
      if ('failure' in made) return made.failure;
      compiled = made;
      for (const input of samples) {
        const { outcome } = this.call(compiled, input);
        if (outcome.kind === 'error' && BUDGET_FAILURE_KINDS.has(outcome.error.kind)) {
          return outcome.error;
        }
      }
      return null;
    } catch (error) {
      compiled = null;
      return this.engineFailed(error);
    } finally {
      if (compiled !== null) this.dispose(compiled);
      this.recycleIfLarge();
    }
  }

  /** Disposes every runtime and drops the module. */
  close(): void {
    for (const key of [...this.cache.keys()]) this.forget(key);
    this.module = null;
  }

  /** Runs a small transformation a few times, so a new thread's first real call is not its slowest. */
  private warm(): void {
    const code = {
      key: '\u0000warm-up',
      code: 'function handler(webhook) {\n  webhook.payload = { seen: webhook.payload.data.id };\n  return webhook;\n}\n',
    };
    const input: TransformationInput = {
      method: 'POST',
      url: 'https://example.com/hook',
      headers: { 'x-warm-up': '1' },
      payloadJson: '{"type":"lead.created","data":{"id":1}}',
      eventType: 'lead.created',
    };
    for (let i = 0; i < 50; i++) this.run(code, input);
    this.forget(code.key);
  }

  /** The key's runtime, or its remembered failure; made and cached when missing or stale. */
  private entryFor({ key, code }: TransformationCode): Compiled | Refused {
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.code === code) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    if (cached !== undefined) this.forget(key);
    const made = this.compile(code);
    if ('failure' in made && BUDGET_FAILURE_KINDS.has(made.failure.kind)) return made;
    this.cache.set(key, made);
    while (this.cache.size > this.runtimes) {
      const oldest = this.cache.keys().next().value as string;
      this.forget(oldest);
    }
    return made;
  }

  /**
   * A runtime with the prelude and `code` evaluated and `handler` taken, or why the code
   * cannot run. Throws only when QuickJS itself fails.
   */
  private compile(code: string): Compiled | Refused {
    const module = this.requireModule();
    const memory = module.getWasmMemory();
    const runtime = module.newRuntime();
    const budget: Budget = { deadline: 0, interrupted: false, memoryAtStart: 0, overMemory: false };
    let context: QuickJSContext | null = null;
    const handles: QuickJSHandle[] = [];
    const release = () => {
      for (const handle of handles) if (handle.alive) handle.dispose();
      context?.dispose();
      runtime.dispose();
    };
    try {
      runtime.setMemoryLimit(TRANSFORMATION_MEMORY_LIMIT_BYTES);
      runtime.setMaxStackSize(TRANSFORMATION_MAX_STACK_BYTES);
      runtime.setInterruptHandler(() => {
        if (memory.buffer.byteLength - budget.memoryAtStart > TRANSFORMATION_MEMORY_LIMIT_BYTES) {
          budget.overMemory = true;
          return true;
        }
        if (performance.now() <= budget.deadline) return false;
        budget.interrupted = true;
        return true;
      });
      context = runtime.newContext();
      const vm = context;

      startBudget(budget, memory, PRELUDE_BUDGET_MS);
      const prelude = vm.evalCode(SANDBOX_PRELUDE, PRELUDE_FILE_NAME, {
        type: 'global',
        strict: true,
      });
      if (prelude.error) {
        prelude.error.dispose();
        throw new Error('the sandbox prelude failed');
      }
      const api = prelude.value;
      const [take, call, serialise, describe] = ['take', 'call', 'serialise', 'describe'].map(
        (name) => {
          const handle = vm.getProp(api, name);
          handles.push(handle);
          return handle;
        },
      );
      api.dispose();

      const partial = { code, memory, runtime, context: vm, budget };
      startBudget(budget, memory, TRANSFORMATION_CPU_BUDGET_MS);
      const evaluated = vm.evalCode(code, TRANSFORMATION_FILE_NAME, { type: 'global' });
      if (evaluated.error) {
        const problem = this.describeFailure(partial, describe, evaluated.error, true);
        release();
        return { code, failure: problem };
      }
      evaluated.value.dispose();
      const taken = vm.callFunction(take, vm.undefined);
      if (taken.error) {
        const problem = this.describeFailure(partial, describe, taken.error, false);
        release();
        return { code, failure: problem };
      }
      const handler = taken.value;
      handles.push(handler);
      const type = vm.typeof(handler);
      if (type !== 'function') {
        release();
        return {
          code,
          failure: failure(
            'no_handler',
            `the code must define a function named handler; handler is ${type === 'object' ? 'an object' : type}`,
          ),
        };
      }
      const drained = this.drainJobs(partial, describe);
      if (drained !== null || grewPastLimit(budget, memory)) {
        release();
        return { code, failure: drained ?? failure('memory', MEMORY_MESSAGE) };
      }
      take.dispose();
      return { ...partial, handles: { call, serialise, describe, handler } };
    } catch (error) {
      try {
        release();
      } catch {
        // The module is replaced by engineFailed.
      }
      throw error;
    }
  }

  /**
   * One call of a compiled transformation. `broken` says its runtime must be disposed (a budget
   * failure, or a thrown value that could not be read). Throws only when QuickJS itself fails.
   */
  private call(
    entry: Compiled,
    input: TransformationInput,
  ): { outcome: WireOutcome; broken: boolean } {
    const { context: vm, budget } = entry;
    const meta = vm.newString(
      JSON.stringify({
        method: input.method,
        url: input.url,
        headers: input.headers,
        event_type: input.eventType,
      }),
    );
    const payload = vm.newString(input.payloadJson);
    const started = performance.now();
    startBudget(budget, entry.memory, TRANSFORMATION_CPU_BUDGET_MS);
    try {
      const result = this.callWithin(entry, meta, payload);
      const memoryFailed =
        result.outcome.kind === 'error' && result.outcome.error.kind === 'memory';
      if (!memoryFailed && grewPastLimit(budget, entry.memory)) {
        return { outcome: errorOutcome(failure('memory', MEMORY_MESSAGE)), broken: true };
      }
      return result;
    } finally {
      this.lastCallMs = performance.now() - started;
    }
  }

  private callWithin(
    entry: Compiled,
    meta: QuickJSHandle,
    payload: QuickJSHandle,
  ): { outcome: WireOutcome; broken: boolean } {
    const { context: vm, handles } = entry;
    const called = vm.callFunction(handles.call, vm.undefined, handles.handler, meta, payload);
    meta.dispose();
    payload.dispose();
    if (called.error) return this.failed(entry, called.error);

    let value = called.value;
    const drained = this.drainJobs(entry, handles.describe);
    if (drained !== null) {
      value.dispose();
      return { outcome: errorOutcome(drained), broken: true };
    }
    const state = vm.getPromiseState(value);
    if (state.type === 'pending') {
      value.dispose();
      return {
        outcome: errorOutcome(
          failure(
            'shape',
            "the handler's promise did not settle: a transformation cannot wait for anything",
          ),
        ),
        broken: false,
      };
    }
    if (state.type === 'rejected') {
      value.dispose();
      return this.failed(entry, state.error);
    }
    if (!state.notAPromise) {
      value.dispose();
      value = state.value;
    }

    const serialised = vm.callFunction(handles.serialise, vm.undefined, value);
    value.dispose();
    if (serialised.error) return this.failed(entry, serialised.error);
    const text = vm.getString(serialised.value);
    serialised.value.dispose();
    return { outcome: readSerialisedResult(text), broken: false };
  }

  /** Runs the promise jobs a call or the code left, under the current deadline. */
  private drainJobs(
    entry: Pick<Compiled, 'memory' | 'runtime' | 'context' | 'budget'>,
    describe: QuickJSHandle,
  ): TransformationFailure | null {
    if (!entry.runtime.hasPendingJob()) return null;
    const jobs = entry.runtime.executePendingJobs();
    if (!jobs.error) return null;
    return this.describeFailure(entry, describe, jobs.error, false);
  }

  private failed(
    entry: Compiled,
    thrown: QuickJSHandle,
  ): { outcome: WireOutcome; broken: boolean } {
    const problem = this.describeFailure(entry, entry.handles.describe, thrown, false);
    const broken = problem.kind !== 'throw' || problem.message === UNREADABLE_THROW;
    return { outcome: errorOutcome(problem), broken };
  }

  /**
   * The failure a thrown value stands for; disposes `thrown`. A timeout is known from the
   * interrupt handler; memory and stack from QuickJS's own `InternalError`s; a syntax error from
   * a `SyntaxError` raised while compiling the customer's file (`atCompile`).
   */
  private describeFailure(
    entry: Pick<Compiled, 'memory' | 'context' | 'budget'>,
    describe: QuickJSHandle,
    thrown: QuickJSHandle,
    atCompile: boolean,
  ): TransformationFailure {
    const { context: vm, budget, memory } = entry;
    const interrupted = budget.interrupted;
    const overMemory = grewPastLimit(budget, memory);
    startBudget(budget, memory, DESCRIBE_BUDGET_MS);
    let described: Described | null = null;
    const read = vm.callFunction(describe, vm.undefined, thrown);
    thrown.dispose();
    if (read.error) read.error.dispose();
    else {
      described = JSON.parse(vm.getString(read.value)) as Described;
      read.value.dispose();
    }
    const [line, column] = positionIn(
      described !== null && 'stack' in described ? described.stack : undefined,
    );
    if (overMemory) return failure('memory', MEMORY_MESSAGE, line, column);
    if (interrupted) return failure('timeout', TIMEOUT_MESSAGE, line, column);
    if (described === null) return failure('throw', UNREADABLE_THROW);
    if ('value' in described) return failure('throw', `Uncaught ${described.value}`);
    const { name, message, stack } = described;
    if (name === 'InternalError' && message === 'out of memory') {
      return failure('memory', MEMORY_MESSAGE, line, column);
    }
    // The parser reports its own recursion as a SyntaxError.
    if ((name === 'InternalError' || name === 'SyntaxError') && message === 'stack overflow') {
      return failure('stack', STACK_MESSAGE, line, column);
    }
    const text = name === '' ? message : message === '' ? name : `${name}: ${message}`;
    // A compile error's stack is one frame without a function name: "    at transformation.js:2:13".
    if (
      atCompile &&
      name === 'SyntaxError' &&
      /^\s*at transformation\.js:\d+:\d+\s*$/.test(stack.split('\n')[0])
    ) {
      return failure('syntax', text, line, column);
    }
    return failure('throw', text, line, column);
  }

  /**
   * QuickJS itself failed (an exception from the WebAssembly side: the native stack ran out, an
   * assertion aborted): its memory may be inconsistent, so every runtime is dropped with the
   * module, undisposed, and the next task loads a new one.
   */
  private engineFailed(error: unknown): TransformationFailure {
    this.cache.clear();
    this.module = null;
    if (isNativeStackOverflow(error)) return failure('stack', STACK_MESSAGE);
    return failure('throw', ENGINE_STOPPED_MESSAGE);
  }

  /** Replaces the module when its memory passed {@link ENGINE_MEMORY_CEILING_BYTES}. */
  private recycleIfLarge(): void {
    const module = this.module;
    if (module === null) return;
    if (module.getWasmMemory().buffer.byteLength <= ENGINE_MEMORY_CEILING_BYTES) return;
    this.close();
  }

  private requireModule(): QuickJSWASMModule {
    if (this.module === null) throw new Error('TransformationEngine.ready() was not awaited');
    return this.module;
  }

  /** Disposes the key's runtime, if any, and forgets the key. */
  private forget(key: string): void {
    const entry = this.cache.get(key);
    this.cache.delete(key);
    if (entry !== undefined && 'runtime' in entry) this.dispose(entry);
  }

  private dispose(entry: Compiled): void {
    try {
      for (const handle of Object.values(entry.handles)) if (handle.alive) handle.dispose();
      entry.context.dispose();
      entry.runtime.dispose();
    } catch {
      // QuickJS refused to free the runtime (an assertion): drop the whole module.
      this.cache.clear();
      this.module = null;
    }
  }
}

/** The message when a thrown value could not be read (its getters threw or ran out of time). */
const UNREADABLE_THROW = 'the handler threw a value that cannot be read';
