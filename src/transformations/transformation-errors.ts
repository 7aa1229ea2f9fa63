/**
 * Thrown by `TransformationSandbox.run` when this process's transformation budget is used up
 * (docs/security.md#transformation-sandbox): too many calls queued or running in the sandbox's
 * threads, or too many of one code key. Nothing ran; the caller puts the delivery back and
 * tries again after `waitMs`.
 */
export class TransformationBusyError extends Error {
  /**
   * @param waitMs milliseconds after which a new try is likely to find room (250–1000).
   */
  constructor(readonly waitMs: number) {
    super(`the transformation sandbox is busy; try again in ${waitMs} ms`);
    this.name = 'TransformationBusyError';
  }
}
