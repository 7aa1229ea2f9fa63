import type { DataSource, EntityManager } from 'typeorm';
import {
  compileFilter,
  type CompiledFilter,
  type DeliveryTargets,
  type Subscriber,
} from '../../webhooks';
import type { Deliveries, DeliveryPair, FilteredCount } from '../deliveries';
import type { DeliveryDispatcher } from './delivery.dispatcher';
import { WebhookEventPublisher } from './webhook-event.publisher';

/** A publisher over fakes: the campaign's endpoints are `subscribers`; what it writes is kept. */
function publisherOf(subscribers: Subscriber[]) {
  const written: { pairs: DeliveryPair[]; filtered: FilteredCount[]; events: number } = {
    pairs: [],
    filtered: [],
    events: 0,
  };
  const targets = { subscribers: () => Promise.resolve(subscribers) };
  const deliveries = {
    record: (
      _m: EntityManager,
      _c: number,
      events: unknown[],
      pairs: DeliveryPair[],
      _t: unknown,
      filtered: FilteredCount[],
    ) => {
      written.events = events.length;
      written.pairs = pairs;
      written.filtered = filtered;
      return Promise.resolve([]);
    },
  };
  const publisher = new WebhookEventPublisher(
    {} as DataSource,
    targets as unknown as DeliveryTargets,
    deliveries as unknown as Deliveries,
    {} as DeliveryDispatcher,
  );
  return { publisher, written };
}

const lead = (source: string) =>
  ({ type: 'lead.created', data: { id: 1, source } }) as Parameters<
    WebhookEventPublisher['record']
  >[2][number];

describe('payload filters when events are recorded (docs/webhooks.md#payload-filters)', () => {
  it('writes deliveries only for the events a filter matches, counts the rest, and never a delivery for an event all filters left out', async () => {
    const { publisher, written } = publisherOf([
      {
        id: 1,
        subscribedEvents: ['lead.created'],
        isEnabled: true,
        ordering: 'none',
        filter: compileFilter('data.source == "facebook"'),
      },
      {
        id: 2,
        subscribedEvents: ['lead.created'],
        isEnabled: true,
        ordering: 'none',
        filter: compileFilter('data.source == "nowhere"'),
      },
      // Fails on every event (no such field): no match, counted as an error.
      {
        id: 3,
        subscribedEvents: ['lead.created'],
        isEnabled: true,
        ordering: 'none',
        filter: compileFilter('data.missing == 1'),
      },
      {
        id: 4,
        subscribedEvents: ['lead.created'],
        isEnabled: true,
        ordering: 'none',
        filter: null,
      },
    ]);
    const recorded = await publisher.record({} as EntityManager, 1, [
      lead('facebook'),
      lead('google'),
    ]);
    expect(written.events).toBe(2);
    expect(written.pairs.map((p) => p.endpointId).sort()).toEqual([1, 4, 4]);
    expect(written.filtered).toEqual([
      { endpointId: 1, filtered: 1, errors: 0 },
      { endpointId: 2, filtered: 2, errors: 0 },
      { endpointId: 3, filtered: 2, errors: 2 },
    ]);
    expect(recorded.filtered).toBe(5);

    const filteredOnly = publisherOf([
      {
        id: 1,
        subscribedEvents: ['lead.created'],
        isEnabled: true,
        ordering: 'none',
        filter: compileFilter('data.source == "facebook"'),
      },
    ]);
    const none = await filteredOnly.publisher.record({} as EntityManager, 1, [lead('google')]);
    expect(none).toEqual({ events: [], deliveries: [], filtered: 1 });
    expect(filteredOnly.written.events).toBe(0);
    expect(filteredOnly.written.filtered).toEqual([{ endpointId: 1, filtered: 1, errors: 0 }]);
  });

  it('stops a filter that spends its run-time budget: its remaining events count as errors, the other endpoints get theirs', async () => {
    // Costs 30 ms per event and matches: past the budget (25 ms + 0.05 ms per event) after one.
    const slow = {
      expression: 'slow',
      evaluate: () => {
        const until = performance.now() + 30;
        while (performance.now() < until);
        return { match: true, error: null, code: null };
      },
    } as unknown as CompiledFilter;
    const { publisher, written } = publisherOf([
      {
        id: 1,
        subscribedEvents: ['lead.created'],
        isEnabled: true,
        ordering: 'none',
        filter: slow,
      },
      {
        id: 2,
        subscribedEvents: ['lead.created'],
        isEnabled: true,
        ordering: 'none',
        filter: null,
      },
    ]);
    const started = performance.now();
    await publisher.record(
      {} as EntityManager,
      1,
      Array.from({ length: 100 }, () => lead('facebook')),
    );
    expect(performance.now() - started).toBeLessThan(500);
    expect(written.events).toBe(100);
    expect(written.pairs.filter((p) => p.endpointId === 2)).toHaveLength(100);
    expect(written.pairs.filter((p) => p.endpointId === 1)).toHaveLength(1);
    expect(written.filtered).toEqual([{ endpointId: 1, filtered: 99, errors: 99 }]);
  });
});
