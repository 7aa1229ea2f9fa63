interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Groups the calls made within one turn of the event loop into one call of `run` (at most
 * `maxBatch` items each), so concurrent callers share a transaction instead of queueing for
 * the pool. Each caller's promise settles with its own item's result.
 */
export class MicroBatcher<T, R> {
  private queue: Array<Waiting<T, R>> = [];
  private flushing = false;

  /**
   * @param run handles a batch; must return one result per item, in order. When it throws,
   *   every caller of the batch gets the error.
   */
  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 500,
  ) {}

  /** Adds `item` to the next batch; resolves with its result once the batch has run. */
  push(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      // Let the calls made in this turn of the event loop join the batch.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.run(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results[i]));
        } catch (error) {
          batch.forEach((w) => w.reject(error));
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
