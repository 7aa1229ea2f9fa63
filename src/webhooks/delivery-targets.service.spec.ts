import { sumByEndpoint } from './delivery-targets.service';
import { toHealthView } from './webhook-endpoint.views';
import type { WebhookEndpoint } from './webhook-endpoint.entity';

const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 8, 0, s));

describe('health counters', () => {
  it('total attempts per endpoint, the last one by start time deciding "last delivery"', () => {
    const totals = sumByEndpoint([
      { endpointId: 2, attemptedAt: at(5), durationMs: 10.5, success: true },
      { endpointId: 1, attemptedAt: at(1), durationMs: 100, success: false },
      { endpointId: 2, attemptedAt: at(3), durationMs: 4.5, success: false }, // finished later, started earlier
      { endpointId: 1, attemptedAt: at(2), durationMs: 50, success: true },
    ]);
    expect(totals).toEqual([
      { endpointId: 2, attempts: 2, successes: 1, durationMs: 15, lastAt: at(5), lastOk: true },
      { endpointId: 1, attempts: 2, successes: 1, durationMs: 150, lastAt: at(2), lastOk: true },
    ]);
  });

  it('report the mean duration rounded to 3 decimals, and nulls before the first attempt', () => {
    const endpoint = {
      id: 7,
      url: 'https://example.com/h',
      isEnabled: true,
      totalDeliveries: 4,
      successfulDeliveries: 3,
      failedDeliveries: 1,
      totalDurationMs: 91.653000000000021,
      lastDeliveryAt: at(9),
      lastDeliveryIsSuccessful: true,
    } as WebhookEndpoint;
    expect(toHealthView(endpoint)).toMatchObject({ success_rate: 0.75, avg_duration_ms: 22.913 });
    expect(
      toHealthView({
        ...endpoint,
        totalDeliveries: 0,
        successfulDeliveries: 0,
        failedDeliveries: 0,
        totalDurationMs: 0,
        lastDeliveryAt: null,
        lastDeliveryIsSuccessful: null,
      } as WebhookEndpoint),
    ).toMatchObject({ success_rate: null, avg_duration_ms: null, last_delivery_at: null });
  });
});
