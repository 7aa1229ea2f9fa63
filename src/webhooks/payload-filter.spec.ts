import { InvalidInputError } from '../common/domain-error';
import { EVENT_EXAMPLES } from './event-examples.constants';
import {
  MAX_FILTER_COST,
  MAX_FILTER_LENGTH,
  FILTER_PARSE_LIMITS,
} from './payload-filter.constants';
import { compileFilter, validateFilter } from './payload-filter';

const LEAD = ['lead.created'];
const TS = '2026-11-29T10:00:00.000Z';

function refusal(filter: string, types: readonly string[] = LEAD): InvalidInputError {
  try {
    validateFilter(filter, types);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe('filter');
    return error as InvalidInputError;
  }
  throw new Error(`"${filter.slice(0, 80)}" was accepted`);
}

const lead = (changes: Record<string, unknown> = {}) => ({
  ...EVENT_EXAMPLES['lead.created'],
  title: 'CEO',
  ...changes,
});

describe('validateFilter: the check on save', () => {
  it('accepts the issue example and stores it trimmed', () => {
    const filter =
      ' type == "lead.created" && data.source == "facebook" && data.tags.exists(t, t == "vip") ';
    expect(validateFilter(filter, LEAD)).toBe(filter.trim());
  });

  it('stores a blank or missing filter as null: every event of the subscribed types', () => {
    expect(validateFilter('', LEAD)).toBeNull();
    expect(validateFilter('   ', LEAD)).toBeNull();
    expect(validateFilter(null, LEAD)).toBeNull();
    expect(validateFilter(undefined, LEAD)).toBeNull();
  });

  it('names the position and the unknown field of a typo', () => {
    expect(refusal('data.source == "x" && data.stat == "CA"').message).toBe(
      'filter has an error at line 1, column 28 (for lead.created events): No such key: stat',
    );
  });

  it('names a comparison of a string field with a number as a type error', () => {
    expect(refusal('data.source > 5').message).toMatch(
      /^filter has an error at line 1, column 1 \(for lead\.created events\): no such overload: string > int$/,
    );
  });

  it('names a function that does not exist', () => {
    expect(refusal('data.source == "a" &&\n  foo(data.source)').message).toBe(
      'filter has an error at line 2, column 3: function foo() is not available in filters',
    );
  });

  it('names the position of a syntax error', () => {
    expect(refusal('data.source ==').message).toMatch(
      /^filter has an error at line 1, column 15: /,
    );
  });

  it('refuses an expression that is not a bool', () => {
    expect(refusal('data.id + 1').message).toMatch(/must be a bool expression, not int/);
  });

  it('refuses cel.bind, which could double a string again and again', () => {
    expect(refusal('cel.bind(a, data.source, a + a == "")').message).toMatch(
      /function cel\.bind\(\) is not available/,
    );
  });

  it('refuses an identifier starting with __, reserved for the rewrite', () => {
    expect(refusal('__type == "lead.created"').message).toMatch(/reserved/);
  });

  it('refuses a pattern that is not a literal or not RE2 syntax', () => {
    expect(refusal('data.source.matches(data.source)').message).toMatch(/string literal/);
    expect(refusal('data.source.matches("(?=a)")').message).toMatch(/invalid regular expression/);
  });

  it('accepts a field of one subscribed type only, and refuses one no subscribed type has', () => {
    const types = ['lead.created', 'call.completed'];
    expect(
      validateFilter('type == "call.completed" && data.outcome == "answered"', types),
    ).not.toBeNull();
    expect(validateFilter('data.source == "facebook"', types)).not.toBeNull();
    // Reported for the first subscribed type.
    expect(refusal('data.stat == "CA"', types).message).toMatch(/for lead\.created events/);
  });

  it('checks integer and number fields by their JSON Schema types', () => {
    expect(validateFilter('data.duration_seconds > 30', ['call.completed'])).not.toBeNull();
    expect(validateFilter('data.value >= 100.0', ['lead.converted'])).not.toBeNull();
    expect(refusal('data.duration_seconds == "30"', ['call.completed']).message).toMatch(
      /no such overload/,
    );
  });
});

describe('hostile filters', () => {
  it('refuses a 10 KB filter on its length', () => {
    const long = `data.source == "${'x'.repeat(10 * 1024)}"`;
    expect(refusal(long).message).toBe(
      `filter has an error as a whole: must be at most ${MAX_FILTER_LENGTH} characters`,
    );
  });

  it('refuses a filter nested 200 deep on the depth limit', () => {
    const deep = `${'('.repeat(200)}true${')'.repeat(200)}`;
    expect(refusal(deep).message).toMatch(/Exceeded maxDepth \(24\)/);
    const lists = `size(${'['.repeat(200)}1${']'.repeat(200)}) > 0`;
    expect(refusal(lists).message).toMatch(/Exceeded maxDepth/);
  });

  it('refuses a list literal of 100,000 items (on length, and on the list limit below it)', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => i).join(',');
    expect(refusal(`data.id in [${items}]`).message).toMatch(/at most 2000 characters/);
    const short = Array.from({ length: 101 }, () => '1').join(',');
    expect(refusal(`data.id in [${short}]`).message).toMatch(
      new RegExp(`Exceeded maxListElements \\(${FILTER_PARSE_LIMITS.maxListElements}\\)`),
    );
  });

  it('refuses nested comprehensions over the event that exceed the cost limit', () => {
    const nested = 'data.lead_ids.exists(i, data.lead_ids.exists(j, i == j))';
    expect(refusal(nested, ['leads.bulk_created']).message).toMatch(
      new RegExp(`more than the limit of ${MAX_FILTER_COST.toLocaleString('en')}`),
    );
  });

  it('refuses string building in a comprehension beyond the cost limit', () => {
    const building =
      'data.lead_ids.map(i, string(i) + string(i) + string(i) + string(i)).join("").size() > 0';
    expect(refusal(building, ['leads.bulk_created']).message).toMatch(/more than the limit/);
  });

  it('runs matches("(a+)+$") in linear time against a long string: RE2, not backtracking', () => {
    const filter = compileFilter(validateFilter('data.source.matches("(a+)+$")', LEAD)!);
    const source = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    expect(filter.evaluate('lead.created', TS, lead({ source }))).toEqual({
      match: false,
      error: null,
      code: null,
    });
    // JavaScript's RegExp takes longer than the age of the universe on this input.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('keeps the costliest accepted comprehension under a few ms per event', () => {
    const filter = compileFilter(
      validateFilter('data.lead_ids.exists(i, i == 1 || i == 2)', ['leads.bulk_created'])!,
    );
    const ids = Array.from({ length: 10_000 }, (_, i) => i + 10);
    const data = { ...EVENT_EXAMPLES['leads.bulk_created'], lead_ids: ids };
    for (let i = 0; i < 5; i++) filter.evaluate('leads.bulk_created', TS, data);
    const started = performance.now();
    expect(filter.evaluate('leads.bulk_created', TS, data).match).toBe(false);
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe('CompiledFilter.evaluate', () => {
  const filter = compileFilter(
    validateFilter(
      'type == "lead.created" && data.source == "facebook" && data.title in ["CEO", "CTO"]',
      LEAD,
    )!,
  );

  it('matches and does not match by the event', () => {
    expect(filter.evaluate('lead.created', TS, lead({ source: 'facebook' })).match).toBe(true);
    expect(
      filter.evaluate('lead.created', TS, lead({ source: 'facebook', title: 'Intern' })).match,
    ).toBe(false);
    expect(filter.evaluate('lead.created', TS, lead({ source: 'google' })).match).toBe(false);
  });

  it('counts an evaluation error (a missing field) as no match, with the reason and a loggable code', () => {
    const data = lead({ source: 'facebook' }) as Record<string, unknown>;
    delete data.title;
    expect(filter.evaluate('lead.created', TS, data)).toEqual({
      match: false,
      error: 'No such key: title',
      code: 'no_such_key',
    });
  });

  it('compares JSON numbers with int and double literals', () => {
    const f = compileFilter(
      validateFilter('data.duration_seconds > 30 && data.duration_seconds < 90.5', [
        'call.completed',
      ])!,
    );
    const call = EVENT_EXAMPLES['call.completed'];
    expect(f.evaluate('call.completed', TS, { ...call, duration_seconds: 45 }).match).toBe(true);
    expect(f.evaluate('call.completed', TS, { ...call, duration_seconds: 12 }).match).toBe(false);
  });

  it('reads the timestamp as a string and converts it with timestamp()', () => {
    const f = compileFilter(validateFilter('timestamp(timestamp).getHours() == 10', LEAD)!);
    expect(f.evaluate('lead.created', TS, lead()).match).toBe(true);
  });

  it('compiles each expression text once', () => {
    expect(compileFilter(filter.expression)).toBe(filter);
  });
});
