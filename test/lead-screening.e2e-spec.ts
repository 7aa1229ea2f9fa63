/**
 * Worker-thread screening of large uploads (`LeadScreener`, docs/architecture.md#lead-validation-cost)
 * gives the same outcome as screening in the calling thread, byte for byte: the same batch of
 * hostile leads (lone surrogates, NUL, non-strings, prototype keys, duplicates in several
 * spellings) both ways. An e2e spec because the workers run the compiled worker file of dist/,
 * which the e2e setup builds.
 */
import { Logger } from '@nestjs/common';
import fc from 'fast-check';
import { screenBatch, uploadResponse, type ScreenedBatch } from '../src/leads/upload/lead-batch';
import { LeadScreener, MIN_LEADS_FOR_WORKERS } from '../src/leads/upload/lead-screener.service';
import { leadValue, toJsonText } from './support/arbitraries';

/** Whether a JSON value nests more than `max` levels (iterative: some nest 20,000 deep). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, level] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (level + 1 > max) return true;
    for (const child of Object.values(item)) stack.push([child, level + 1]);
  }
  return false;
}

/**
 * What the pipe hands over: `leads` elements after JSON.parse, the non-objects and those nested
 * deeper than a body may be (32 levels, 400 otherwise) left out.
 */
function parsedLeads(count: number, seed: number): Record<string, unknown>[] {
  const leads: Record<string, unknown>[] = [];
  while (leads.length < count) {
    for (const value of fc.sample(leadValue, { numRuns: 500, seed: seed + leads.length })) {
      const parsed: unknown = JSON.parse(toJsonText(value) || 'null');
      const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
      if (isObject && !nestsDeeperThan(parsed, 30)) {
        leads.push(parsed as Record<string, unknown>);
      }
    }
  }
  return leads.slice(0, count);
}

/** The 202 body this outcome gives (before campaign duplicates), as the client reads it. */
const responseText = (batch: ScreenedBatch, received: number) =>
  JSON.stringify(
    uploadResponse('00000000-0000-4000-8000-000000000000', received, {
      errors: batch.errors,
      duplicates: batch.duplicates,
    }),
  );

describe('LeadScreener', () => {
  const screener = new LeadScreener();
  const warn = jest.spyOn(Logger.prototype, 'warn');
  beforeAll(() => screener.onModuleInit());
  afterAll(() => screener.onModuleDestroy());
  // A slice whose worker failed is checked here instead: that would hide a difference.
  afterEach(() => expect(warn).not.toHaveBeenCalled());

  it('uses worker threads on this machine (so the comparisons below are not vacuous)', () => {
    expect(screener.usesWorkers).toBe(true);
  });

  it.each([
    { count: MIN_LEADS_FOR_WORKERS, region: 'US', skip: true, seed: 1 },
    { count: 3_001, region: 'US', skip: false, seed: 2 },
    { count: 2_500, region: 'GB', skip: true, seed: 3 },
    { count: 4_000, region: 'FR', skip: false, seed: 4 },
  ] as const)(
    'gives the same outcome and 202 bytes as the calling thread ($count leads, $region, skip_duplicates $skip)',
    async ({ count, region, skip, seed }) => {
      const leads = parsedLeads(count, seed);
      const here = screenBatch(leads, region, skip);
      const spread = await screener.screen(leads, region, skip);
      expect(here.accepted.length + here.errors.length).toBeGreaterThan(0);
      expect(here.errors.length).toBeGreaterThan(0);
      expect(JSON.stringify(spread)).toBe(JSON.stringify(here));
      expect(spread).toEqual(here);
      expect(responseText(spread, leads.length)).toBe(responseText(here, leads.length));
    },
    60_000,
  );

  it('keeps the first row of a phone spelled differently in two slices', async () => {
    const leads = Array.from({ length: 2 * MIN_LEADS_FOR_WORKERS }, (_, i) => ({
      phone:
        i % 2 === 0
          ? `+1212${2_000_000 + (i % 300)}`
          : `(212) ${200}-${String(i % 300).padStart(4, '0')}`,
    }));
    for (const skip of [true, false]) {
      expect(JSON.stringify(await screener.screen(leads, 'US', skip))).toBe(
        JSON.stringify(screenBatch(leads, 'US', skip)),
      );
    }
  });
});
