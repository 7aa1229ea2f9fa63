import {
  batchByEndpoint,
  DELIVERY_BATCH_SIZE,
  deliveryBatchJobId,
  deliveryBackoff,
  DeliveryRetryError,
} from './delivery.queue';

describe('batchByEndpoint', () => {
  it('groups deliveries per endpoint, in the order given, at most DELIVERY_BATCH_SIZE a job', () => {
    const deliveries = Array.from({ length: 2 * DELIVERY_BATCH_SIZE + 3 }, (_, i) => ({
      id: i + 1,
      endpointId: i % 2 === 0 ? 7 : 9,
    }));
    const batches = batchByEndpoint(deliveries);
    expect(batches.map((b) => [b.endpointId, b.deliveryIds.length])).toEqual([
      [7, DELIVERY_BATCH_SIZE],
      [7, 2],
      [9, DELIVERY_BATCH_SIZE],
      [9, 1],
    ]);
    expect(batches[0].deliveryIds.slice(0, 3)).toEqual([1, 3, 5]);
    expect(batches[2].deliveryIds.slice(0, 3)).toEqual([2, 4, 6]);
    // Every delivery is in exactly one batch.
    const all = batches.flatMap((b) => b.deliveryIds).sort((a, b) => a - b);
    expect(all).toEqual(deliveries.map((d) => d.id));
  });

  it('returns no batch for no delivery', () => {
    expect(batchByEndpoint([])).toEqual([]);
  });
});

describe('deliveryBatchJobId', () => {
  it('is the same for the same batch and differs for another', () => {
    expect(deliveryBatchJobId([10, 11, 12])).toBe('deliveries-10-12-3');
    expect(deliveryBatchJobId([10, 11, 12])).toBe(deliveryBatchJobId([10, 11, 12]));
    expect(deliveryBatchJobId([10, 12])).not.toBe(deliveryBatchJobId([10, 11, 12]));
  });
});

describe('deliveryBackoff', () => {
  it('waits the delay a failed attempt asked for, 5 s for anything else', () => {
    expect(deliveryBackoff(1, 'custom', new DeliveryRetryError('failed', 30_000))).toBe(30_000);
    expect(deliveryBackoff(1, 'custom', new Error('database down'))).toBe(5_000);
  });
});
