/**
 * The transformation sandbox's limits (docs/security.md#transformation-sandbox) and the words
 * its failures use. This file imports nothing: the sandbox's worker threads load it.
 */

/** Most UTF-8 bytes of a transformation's code. */
export const TRANSFORMATION_MAX_CODE_BYTES = 64 * 1024;
/** Most bytes of memory one transformation's QuickJS runtime may hold, its code included. */
export const TRANSFORMATION_MEMORY_LIMIT_BYTES = 16 * 1024 * 1024;
/**
 * Most milliseconds of wall time one call may spend inside the engine (the handler, the promise
 * jobs it leaves and the serialisation of its result). Evaluating the code when a runtime is made
 * has a budget of its own, of the same length.
 */
export const TRANSFORMATION_CPU_BUDGET_MS = 50;
/** Most UTF-8 bytes of the request body a transformation returns. */
export const TRANSFORMATION_MAX_OUTPUT_BYTES = 256 * 1024;

/** The methods a transformation may send with. */
export type TransformationMethod = 'POST' | 'PUT' | 'PATCH';
/** {@link TransformationMethod} as a list, in the order messages name them. */
export const TRANSFORMATION_METHODS: readonly TransformationMethod[] = ['POST', 'PUT', 'PATCH'];

/** Most characters of the URL a transformation returns. */
export const TRANSFORMATION_MAX_URL_LENGTH = 2048;
/** Most headers a transformation returns. */
export const TRANSFORMATION_MAX_HEADERS = 50;
/** Most characters of a returned header's name. */
export const TRANSFORMATION_MAX_HEADER_NAME_LENGTH = 100;
/** Most characters of a returned header's value. */
export const TRANSFORMATION_MAX_HEADER_VALUE_LENGTH = 2048;
/** Most characters of a failure's message. */
export const TRANSFORMATION_MAX_MESSAGE_LENGTH = 400;
/**
 * The JavaScript stack one runtime may use, in bytes, as QuickJS counts it: about 1,300 nested
 * calls of a small function. A deeper recursion fails with kind `stack`.
 */
export const TRANSFORMATION_MAX_STACK_BYTES = 256 * 1024;

/** The file name the customer's code is evaluated under: error positions name it. */
export const TRANSFORMATION_FILE_NAME = 'transformation.js';

/**
 * What went wrong, in {@link TransformationFailure}'s `kind`:
 * - `syntax`: the code does not parse;
 * - `no_handler`: it defines no function named `handler`;
 * - `throw`: the code or the handler threw (or the worker running it stopped);
 * - `timeout`: it ran longer than {@link TRANSFORMATION_CPU_BUDGET_MS};
 * - `memory`: it used more than {@link TRANSFORMATION_MEMORY_LIMIT_BYTES};
 * - `stack`: it recursed deeper than the stack allows;
 * - `output_too_large`: the body is larger than {@link TRANSFORMATION_MAX_OUTPUT_BYTES};
 * - `shape`: the handler's result is not a request (docs/webhooks.md#transformations);
 * - `code_too_large`: the code is larger than {@link TRANSFORMATION_MAX_CODE_BYTES}.
 */
export type TransformationFailureKind =
  | 'syntax'
  | 'no_handler'
  | 'throw'
  | 'timeout'
  | 'memory'
  | 'output_too_large'
  | 'shape'
  | 'code_too_large'
  | 'stack';

/**
 * The failures that break a limit of the sandbox rather than depend on the data: a trial run on
 * save that ends so refuses the code (docs/webhooks.md#transformations).
 */
export const BUDGET_FAILURE_KINDS: ReadonlySet<string> = new Set<TransformationFailureKind>([
  'timeout',
  'memory',
  'output_too_large',
  'stack',
]);

/**
 * A size as a failure message writes it: whole KiB below 1 MiB (rounded up, so 256 KiB + 1 byte
 * reads "257 KiB"), else MiB with one decimal when it has one.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KiB`;
  const mib = Math.round((bytes / (1024 * 1024)) * 10) / 10;
  return `${Number.isInteger(mib) ? mib.toFixed(0) : mib.toFixed(1)} MiB`;
}

/** The message of a `timeout` failure. */
export const TIMEOUT_MESSAGE = `ran longer than ${TRANSFORMATION_CPU_BUDGET_MS} ms`;
/** The message of a `memory` failure. */
export const MEMORY_MESSAGE = `used more than ${formatBytes(TRANSFORMATION_MEMORY_LIMIT_BYTES)} of memory`;
/** The message of a `stack` failure. */
export const STACK_MESSAGE = 'called functions too deeply: the stack overflowed';
/** The message when the thread running a call stopped (crashed) before it answered. */
export const WORKER_STOPPED_MESSAGE = "the transformation's worker stopped";
