import { describe, expect, it } from 'vitest';
import { hasFilters, logQueryParams, NO_FILTERS, rangeProblem } from './log-filters';

describe('the delivery log filters as query parameters', () => {
  it('sends only the limit without filters', () => {
    expect(logQueryParams(NO_FILTERS, null)).toEqual({ limit: 50 });
    expect(hasFilters(NO_FILTERS)).toBe(false);
  });

  it('sends outcome, event type, the time range in UTC and the cursor', () => {
    const from = '2026-11-20T09:30';
    const to = '2026-11-21T18:00';
    const params = logQueryParams(
      { outcome: 'failed', eventType: 'ping', from, to },
      'djE6MTIzOjQ1',
      25,
    );
    expect(params).toEqual({
      limit: 25,
      outcome: 'failed',
      event_type: 'ping',
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      cursor: 'djE6MTIzOjQ1',
    });
    expect(String(params.from)).toMatch(/Z$/);
  });

  it('leaves out a range end that is not after its start, and says why', () => {
    const filters = { ...NO_FILTERS, from: '2026-11-21T10:00', to: '2026-11-21T09:00' };
    expect(rangeProblem(filters)).toMatch(/after its start/);
    expect(logQueryParams(filters, null)).not.toHaveProperty('to');
    expect(rangeProblem({ ...filters, to: '2026-11-21T11:00' })).toBeNull();
  });

  it('ignores a time that is not one', () => {
    expect(logQueryParams({ ...NO_FILTERS, from: 'not a time' }, null)).toEqual({ limit: 50 });
  });
});
