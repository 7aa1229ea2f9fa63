import { InvalidInputError } from '../../common/domain-error';
import { parseScope, parseSince } from './delivery-recovery.service';
import { nextStep } from '../attempts';

describe('parseSince (docs/dashboard.md#bulk-recovery)', () => {
  it('reads an ISO 8601 date-time with a zone, to the millisecond', () => {
    expect(parseSince('2026-11-24T09:00:00Z').toISOString()).toBe('2026-11-24T09:00:00.000Z');
    expect(parseSince('2026-11-24T10:30+01:00').toISOString()).toBe('2026-11-24T09:30:00.000Z');
    expect(parseSince('2026-11-24T09:00:00.123456Z').toISOString()).toBe(
      '2026-11-24T09:00:00.123Z',
    );
  });

  it.each([
    [undefined, 'since must be an ISO 8601 date-time with a time zone'],
    [1_700_000_000, 'since must be an ISO 8601 date-time with a time zone'],
    ['2026-11-24T09:00:00', 'since must be an ISO 8601 date-time with a time zone'],
    ['2026-11-31T09:00:00Z', 'since must be an ISO 8601 date-time with a time zone'],
    ['yesterday', 'since must be an ISO 8601 date-time with a time zone'],
    [new Date(Date.now() + 60_000).toISOString(), 'since must not be in the future'],
  ])('refuses %p', (value, message) => {
    let thrown: unknown;
    try {
      parseSince(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect({
      message: (thrown as InvalidInputError).message,
      field: (thrown as InvalidInputError).field,
    }).toEqual({
      message,
      field: 'since',
    });
  });
});

describe('a recovered delivery’s one more attempt (docs/webhooks.md#bulk-recovery)', () => {
  const schedule = [1_000, 2_000];
  // A delivery failed for good after attempt schedule.length + 1 (more after redeliveries):
  // the attempt a recovery gives it is beyond the schedule, so a failure is final at once,
  // even one whose Retry-After asks for a later try.
  it.each([3, 4, 9])('fails for good after attempt %i of a two-step schedule', (attempt) => {
    for (const answer of [
      { success: false, statusCode: 500 },
      { success: false, statusCode: null },
      { success: false, statusCode: 429, retryAfterMs: 5_000 },
    ]) {
      expect(nextStep(attempt + 1, answer, schedule)).toEqual({ status: 'failed', delayMs: 0 });
    }
    expect(nextStep(attempt + 1, { success: true, statusCode: 204 }, schedule)).toEqual({
      status: 'succeeded',
      delayMs: 0,
    });
  });
});

describe('parseScope (docs/dashboard.md#replaying-missed-deliveries)', () => {
  it('reads failed or missed, failed when absent', () => {
    expect(parseScope(undefined)).toBe('failed');
    expect(parseScope('failed')).toBe('failed');
    expect(parseScope('missed')).toBe('missed');
  });

  it.each([null, '', 'skipped', 'MISSED', 1, ['missed']])('refuses %p naming scope', (value) => {
    expect(() => parseScope(value)).toThrow(
      expect.objectContaining({
        constructor: InvalidInputError,
        message: 'scope must be one of failed, missed, transformation_errors',
        field: 'scope',
      }),
    );
  });
});

describe('a replayed skipped delivery’s attempts (docs/webhooks.md#replaying-missed-deliveries)', () => {
  // A skipped delivery was never attempted (attempt_count 0): replayed, its first attempt is
  // attempt 1, with the whole schedule after it, like a new delivery's.
  it('gets the whole retry schedule', () => {
    const schedule = [1_000, 2_000];
    const refused = { success: false, statusCode: 500 };
    expect(nextStep(1, refused, schedule)).toEqual({ status: 'pending', delayMs: 1_000 });
    expect(nextStep(2, refused, schedule)).toEqual({ status: 'pending', delayMs: 2_000 });
    expect(nextStep(3, refused, schedule)).toEqual({ status: 'failed', delayMs: 0 });
  });
});
