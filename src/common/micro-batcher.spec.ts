import { MicroBatcher } from './micro-batcher';

describe('MicroBatcher', () => {
  it('runs the calls of one event-loop turn as one batch, each caller getting its own result', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      batches.push(items);
      return items.map((n) => n * 10);
    });
    const results = await Promise.all([1, 2, 3].map((n) => batcher.push(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('splits a burst into batches of at most maxBatch items, in order', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      batches.push(items);
      return items;
    }, 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.push(n)))).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('rejects every caller of a failed batch, and runs the next batch normally', async () => {
    let fail = true;
    const batcher = new MicroBatcher<string, string>(async (items) => {
      if (fail) throw new Error('database down');
      return items;
    });
    const failed = await Promise.allSettled([batcher.push('a'), batcher.push('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batcher.push('c')).toBe('c');
  });

  it('takes calls made while a batch runs into the following batch', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new MicroBatcher<string, string>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await gate;
      return items;
    });
    const first = batcher.push('a');
    await new Promise((resolve) => setImmediate(resolve));
    const second = [batcher.push('b'), batcher.push('c')];
    release();
    expect(await Promise.all([first, ...second])).toEqual(['a', 'b', 'c']);
    expect(batches).toEqual([['a'], ['b', 'c']]);
  });
});
