import type { EventType } from '../api/types';
import { fakeSession, json, stubFetch } from './fake-api';

/** A route of the fake dashboard API: `METHOD /path` (path under /dashboard/api) → answer. */
export type FakeRoutes = Record<
  string,
  ((request: Request, url: URL) => Response | Promise<Response> | unknown) | object
>;

/**
 * A fake dashboard API: signed in as a user of `role`, answering `routes` (`'GET /campaigns'`;
 * a function is called with the request; any answer that is not a Response is sent as 200 JSON) and 404 for anything else.
 */
export function fakeDashboard(routes: FakeRoutes, role: 'admin' | 'viewer' = 'admin') {
  return stubFetch(async (request) => {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/dashboard\/api/, '');
    if (path === '/session' && request.method === 'GET') return json(200, fakeSession({ role }));
    const handler = routes[`${request.method} ${path}`];
    if (!handler) return json(404, { error: 'not_found', message: `No fake for ${path}` });
    const answer = typeof handler === 'function' ? await handler(request, url) : handler;
    return answer instanceof Response ? answer : json(200, answer);
  });
}

export const EVENT_TYPES: EventType[] = [
  {
    type: 'lead.created',
    description: 'A lead was created by an upload.',
    example: { id: 1, phone: '+14155550100' },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'LeadCreatedEvent',
      type: 'object',
      properties: { type: { type: 'string', const: 'lead.created' } },
    },
  },
  {
    type: 'leads.bulk_created',
    description: 'An upload created leads.',
    example: { count: 2 },
    schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
  },
];

export function fakeEndpoint(overrides: Record<string, unknown> = {}) {
  return {
    id: 5,
    campaign_id: 2,
    url: 'https://crm.example.com/hooks',
    description: 'CRM sync',
    subscribed_events: ['lead.created'],
    is_enabled: true,
    created_at: '2026-11-20T10:00:00Z',
    last_delivery_is_successful: true,
    health: {
      total_deliveries: 4,
      successful_deliveries: 3,
      failed_deliveries: 1,
      success_rate: 0.75,
      last_delivery_at: '2026-11-22T10:00:00Z',
      last_delivery_is_successful: true,
      avg_duration_ms: 42.5,
    },
    previous_secret_expires_at: null,
    disabled_reason: null,
    disabled_at: null,
    last_disabled_at: null,
    last_disabled_reason: null,
    failing_since: null,
    failing_reason: null,
    auto_disable_at: null,
    signature_scheme: 'symmetric',
    public_key: null,
    previous_public_key: null,
    custom_headers: [],
    max_deliveries_per_second: null,
    max_in_flight: null,
    ordering: 'none',
    auto_recover: false,
    recovery_probe: null,
    filter: null,
    ...overrides,
  };
}

/** A recovery as the service answers it (docs/dashboard.md#bulk-recovery): of endpoint 5, running. */
export function fakeRecovery(overrides: Record<string, unknown> = {}) {
  return {
    id: 4,
    endpoint_id: 5,
    scope: 'failed',
    since: '2026-11-24T09:00:00.000Z',
    status: 'running',
    total: 3,
    processed: 0,
    created_at: '2026-11-25T10:00:00Z',
    finished_at: null,
    ...overrides,
  };
}

/**
 * The API of endpoint 5's page: the endpoint as `endpoint()` answers it, its recoveries as
 * `recoveries()` answers them at each read, a recovery preview of 3 failed and 2 skipped
 * deliveries since the time asked, and `routes` besides (or instead).
 */
export function fakeEndpointPageApi({
  endpoint = () => fakeEndpoint(),
  recoveries = () => [],
  routes = {},
}: {
  endpoint?: () => unknown;
  recoveries?: () => unknown[];
  routes?: FakeRoutes;
} = {}): FakeRoutes {
  return {
    'GET /campaigns': [],
    'GET /endpoints/5': () => endpoint(),
    'GET /event-types': EVENT_TYPES,
    'GET /endpoints/5/attempts': { items: [], next_cursor: null },
    'GET /endpoints/5/recoveries': () => recoveries(),
    'GET /endpoints/5/recovery/preview': (_request: Request, url: URL) => ({
      since: new Date(url.searchParams.get('since')!).toISOString(),
      failed_count: 3,
      retrying_count: 0,
      skipped_count: 2,
    }),
    ...routes,
  };
}

export function fakeAttempt(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    delivery_id: 100 + id,
    endpoint_id: 5,
    webhook_id: `evt-${id}`,
    event_type: 'lead.created',
    attempted_at: '2026-11-22T10:00:00Z',
    duration_ms: 12,
    status_code: 200,
    success: true,
    error: null,
    ...overrides,
  };
}

/**
 * A delivery ledger of `count` UTC days ending 2026-11-25, today first, as the service answers
 * it; `counts` by day (`YYYY-MM-DD`), every other day zeros.
 */
export function fakeLedger(
  count: number,
  counts: Record<
    string,
    {
      delivered?: number;
      failed?: number;
      pending?: number;
      throttled?: number;
      skipped?: number;
      filtered?: number;
    }
  > = {},
  throttle: { max_deliveries_per_second: number | null; max_in_flight: number | null } = {
    max_deliveries_per_second: null,
    max_in_flight: null,
  },
) {
  let waiting = 0;
  const today = Date.UTC(2026, 10, 25);
  const days = Array.from({ length: count }, (_, i) => {
    const day = new Date(today - i * 86_400_000).toISOString().slice(0, 10);
    const {
      delivered = 0,
      failed = 0,
      pending = 0,
      throttled = 0,
      skipped = 0,
      filtered = 0,
    } = counts[day] ?? {};
    waiting += throttled;
    return {
      day,
      matched: delivered + failed + pending + skipped,
      delivered,
      failed,
      pending,
      throttled,
      skipped,
      filtered,
    };
  });
  return { days, throttle: { ...throttle, waiting } };
}

/** A lead as the search lists it. */
export function fakeLead(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    campaign_id: 4,
    phone: `+1415555${String(id).padStart(4, '0')}`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: `lead${id}@example.com`,
    company: null,
    title: null,
    tags: ['spring'],
    source: 'open-house',
    import_id: '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b',
    created_at: '2026-11-22T08:44:45.123Z',
    ...overrides,
  };
}
