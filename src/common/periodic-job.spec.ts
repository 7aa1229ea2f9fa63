import { PeriodicJob, type PeriodicJobOptions } from './periodic-job';

/** A promise and its resolve/reject, to hold a run open. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('PeriodicJob (docs/reliability.md#periodic-jobs)', () => {
  const logger = { warn: jest.fn(), error: jest.fn() };
  let job: PeriodicJob<number> | undefined;

  /** A job whose tick runs `task` through `run`, as an owner's pass does. */
  function periodic(task: () => Promise<number>, options: Partial<PeriodicJobOptions> = {}) {
    const counted = { ticks: 0 };
    const created: PeriodicJob<number> = new PeriodicJob<number>({
      name: 'Test pass',
      intervalMs: 1_000,
      logger,
      tick: () => {
        counted.ticks += 1;
        return created.run(task, () => -1);
      },
      ...options,
    });
    job = created;
    return { job: created, counted };
  }

  beforeEach(() => {
    jest.useFakeTimers();
    logger.warn.mockReset();
    logger.error.mockReset();
  });
  afterEach(async () => {
    await job?.stop();
    jest.useRealTimers();
  });

  it('ticks every intervalMs between start and stop, at once too with runAtStart', async () => {
    const task = jest.fn(async () => 1);
    const { job: late, counted } = periodic(task);
    late.start();
    late.start(); // a second start keeps the one timer
    expect(late.started).toBe(true);
    expect(counted.ticks).toBe(0);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(counted.ticks).toBe(3);
    await late.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(counted.ticks).toBe(3);
    expect(late.started).toBe(false);

    const { job: early, counted: earlyTicks } = periodic(task, { runAtStart: true });
    early.start();
    expect(earlyTicks.ticks).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(earlyTicks.ticks).toBe(2);
  });

  it('runs one pass at a time: a tick or a call meanwhile starts nothing, joins it or answers ifBusy', async () => {
    const open = deferred<number>();
    const task = jest.fn(() => open.promise);
    const { job: slow, counted } = periodic(task, { runAtStart: true });
    slow.start();
    expect(slow.busy).toBe(true);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(counted.ticks).toBe(1); // the timer skips its ticks while the run lasts
    const joined = slow.run(
      async () => 99,
      () => -1,
    );
    expect(task).toHaveBeenCalledTimes(1);
    await expect(
      slow.run(
        async () => 99,
        () => -1,
        () => 0,
      ),
    ).resolves.toBe(0);
    expect(task).toHaveBeenCalledTimes(1);
    open.resolve(7);
    await expect(joined).resolves.toBe(7);
    expect(slow.busy).toBe(false);
    await expect(
      slow.run(
        async () => 8,
        () => -1,
      ),
    ).resolves.toBe(8);
  });

  it('logs a failed run with its name and resolves to the fallback, never rejecting', async () => {
    const { job: failing } = periodic(async () => {
      throw new Error('database unreachable');
    });
    await expect(
      failing.run(
        async () => {
          throw new Error('database unreachable');
        },
        (error) => (error instanceof Error ? 5 : 0),
      ),
    ).resolves.toBe(5);
    expect(logger.warn).toHaveBeenCalledWith('Test pass failed: database unreachable');

    failing.start();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(failing.busy).toBe(false);
  });

  it('logs at the error level when asked, and a tick that throws as well', async () => {
    const { job: loud } = periodic(async () => 1, { failureLevel: 'error' });
    await loud.run(
      () => Promise.reject('not an Error'),
      () => 0,
    );
    expect(logger.error).toHaveBeenCalledWith('Test pass failed: not an Error');

    const broken = new PeriodicJob<number>({
      name: 'Broken tick',
      intervalMs: 1_000,
      logger,
      runAtStart: true,
      tick: () => {
        throw new Error('bug');
      },
    });
    job = broken;
    broken.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(logger.warn).toHaveBeenCalledWith('Broken tick failed: bug');
  });

  it('stops once the run under way has ended, and may start again', async () => {
    const open = deferred<number>();
    const { job: stoppable, counted } = periodic(() => open.promise, { runAtStart: true });
    expect(stoppable.stopped).toBe(false);
    stoppable.start();
    let stopped = false;
    const stopping = stoppable.stop().then(() => (stopped = true));
    expect(stoppable.stopped).toBe(true);
    expect(stoppable.started).toBe(false);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(stopped).toBe(false);
    open.resolve(1);
    await stopping;
    expect(stopped).toBe(true);

    stoppable.start();
    expect(stoppable.stopped).toBe(false);
    expect(counted.ticks).toBe(2);
  });

  it('never keeps the process alive', async () => {
    jest.useRealTimers();
    const { job: idle } = periodic(async () => 1, { intervalMs: 60_000 });
    idle.start();
    expect((Reflect.get(idle, 'timer') as NodeJS.Timeout).hasRef()).toBe(false);
    await idle.stop();
  });
});
