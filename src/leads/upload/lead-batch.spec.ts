import {
  checkLeads,
  DUPLICATE_MESSAGE,
  importCounts,
  screenBatch,
  settleCampaignDuplicates,
  settleScreenedBatch,
  settleSuppressed,
  SUPPRESSED_MESSAGE,
  uploadResponse,
  type ScreenedBatch,
} from './lead-batch';

const SF = '+14155552671';
const NYC = '+12123744203';
const LONDON = '+442079460958';

const lead = (phone: string) => ({
  phone,
  first_name: null,
  last_name: null,
  email: null,
  company: null,
  title: null,
});

describe('screenBatch (docs/api.md#per-lead-validation, #duplicates-and-counts)', () => {
  it('accepts valid leads in phone order, normalised, with their rows', () => {
    const batch = screenBatch(
      [{ phone: '(415) 555-2671' }, { phone: '+44 20 7946 0958' }, { phone: '212-374-4203' }],
      'US',
      true,
    );
    expect(batch).toEqual({
      accepted: [
        { row: 2, lead: lead(NYC) },
        { row: 0, lead: lead(SF) },
        { row: 1, lead: lead(LONDON) },
      ],
      errors: [],
      duplicates: 0,
    });
  });

  it('reports each invalid lead once, by row, with its first problem', () => {
    const batch = screenBatch(
      [{ phone: '12345' }, { phone: SF }, {}, { phone: NYC, email: 'nope' }],
      'US',
      true,
    );
    expect(batch.errors).toEqual([
      { row: 0, var_field: 'phone', message: 'phone is not a valid phone number' },
      { row: 2, var_field: 'phone', message: 'phone is required' },
      { row: 3, var_field: 'email', message: 'email is not a valid email address' },
    ]);
    expect(batch.accepted).toEqual([{ row: 1, lead: lead(SF) }]);
  });

  it('with skip_duplicates, keeps the first row of a phone and counts later ones', () => {
    const batch = screenBatch(
      [{ phone: SF }, { phone: '(415) 555-2671' }, { phone: NYC }, { phone: '+1 415 555 2671' }],
      'US',
      true,
    );
    expect(batch.accepted.map((a) => a.row)).toEqual([2, 0]);
    expect(batch.errors).toEqual([]);
    expect(batch.duplicates).toBe(2);
  });

  it('without skip_duplicates, reports later rows of a phone as duplicates', () => {
    const batch = screenBatch([{ phone: SF }, { phone: 'x' }, { phone: SF }], 'US', false);
    expect(batch.accepted).toEqual([{ row: 0, lead: lead(SF) }]);
    expect(batch.errors).toEqual([
      { row: 1, var_field: 'phone', message: 'phone is not a valid phone number' },
      { row: 2, var_field: 'phone', message: DUPLICATE_MESSAGE },
    ]);
    expect(batch.duplicates).toBe(0);
  });

  it('does not count an invalid lead as a duplicate of a valid one', () => {
    const batch = screenBatch([{ phone: SF }, { phone: SF, first_name: 7 }], 'US', true);
    expect(batch.duplicates).toBe(0);
    expect(batch.errors).toEqual([
      { row: 1, var_field: 'first_name', message: expect.any(String) as string },
    ]);
  });

  it('reads phones without + in the region', () => {
    const batch = screenBatch([{ phone: '020 7946 0958' }], 'GB', true);
    expect(batch.accepted).toEqual([{ row: 0, lead: lead(LONDON) }]);
  });
});

describe('settleCampaignDuplicates', () => {
  const screened = (): ScreenedBatch => ({
    accepted: [
      { row: 3, lead: lead(NYC) },
      { row: 0, lead: lead(SF) },
      { row: 1, lead: lead(LONDON) },
    ],
    errors: [{ row: 2, var_field: 'phone', message: 'phone is required' }],
    duplicates: 1,
  });

  it('changes nothing when every accepted lead was created', () => {
    expect(settleCampaignDuplicates(screened(), new Set([SF, NYC, LONDON]), false)).toEqual({
      errors: [{ row: 2, var_field: 'phone', message: 'phone is required' }],
      duplicates: 1,
    });
  });

  it('with skip_duplicates, counts the leads the campaign already had', () => {
    expect(settleCampaignDuplicates(screened(), new Set([LONDON]), true)).toEqual({
      errors: [{ row: 2, var_field: 'phone', message: 'phone is required' }],
      duplicates: 3,
    });
  });

  it('without skip_duplicates, reports them, all errors sorted by row', () => {
    const batch = screened();
    expect(settleCampaignDuplicates(batch, new Set([LONDON]), false)).toEqual({
      errors: [
        { row: 0, var_field: 'phone', message: DUPLICATE_MESSAGE },
        { row: 2, var_field: 'phone', message: 'phone is required' },
        { row: 3, var_field: 'phone', message: DUPLICATE_MESSAGE },
      ],
      duplicates: 1,
    });
    expect(batch.errors).toHaveLength(1); // the screened batch is left as it was
  });
});

describe('importCounts and uploadResponse (docs/api.md#duplicates-and-counts)', () => {
  const outcome = {
    errors: [{ row: 1, var_field: 'phone' as const, message: 'phone is required' }],
    duplicates: 2,
  };

  it('counts valid = received - invalid', () => {
    expect(importCounts(5, outcome)).toEqual({ validCount: 4, invalidCount: 1, duplicateCount: 2 });
  });

  it('builds the 202 body with its keys in the documented order', () => {
    const body = uploadResponse('0b9c2f4e-6a1d-4c8e-9f57-2d3a1b7c9e10', 5, outcome);
    expect(JSON.stringify(body)).toBe(
      '{"status":"accepted","import_id":"0b9c2f4e-6a1d-4c8e-9f57-2d3a1b7c9e10",' +
        '"received_count":5,"valid_count":4,"invalid_count":1,"duplicate_count":2,' +
        '"errors":[{"row":1,"var_field":"phone","message":"phone is required"}]}',
    );
  });
});

describe('checkLeads and settleScreenedBatch', () => {
  it('settle to screenBatch’s outcome from verdicts of slices checked apart', () => {
    const leads: Record<string, unknown>[] = [
      { phone: '+12123744203' },
      { phone: '12345' },
      { phone: '(212) 374-4203' },
      { phone: '+442079460958', email: 'nope' },
      { phone: '212-374-4203' },
      { phone: '+442079460958' },
    ];
    for (const skip of [true, false]) {
      const checks = [...checkLeads(leads.slice(0, 3), 'US'), ...checkLeads(leads.slice(3), 'US')];
      expect(settleScreenedBatch(checks, skip)).toEqual(screenBatch(leads, 'US', skip));
    }
  });
});

describe('settleSuppressed (docs/privacy.md#suppression-list)', () => {
  it('moves the matched leads into the errors on the field that matched, sorted by row', () => {
    const batch = screenBatch(
      [
        { phone: '+14155550101' },
        { phone: '+14155550102', email: 'x@y.co' },
        { phone: 'bad' },
        { phone: '+14155550103' },
      ],
      'US',
      false,
    );
    const verdicts = batch.accepted.map((a) =>
      a.lead.phone === '+14155550101' ? 'phone' : a.lead.email === 'x@y.co' ? 'email' : null,
    );
    const settled = settleSuppressed(batch, verdicts);
    expect(settled.accepted.map((a) => a.lead.phone)).toEqual(['+14155550103']);
    expect(settled.errors).toEqual([
      { row: 0, var_field: 'phone', message: SUPPRESSED_MESSAGE },
      { row: 1, var_field: 'email', message: SUPPRESSED_MESSAGE },
      { row: 2, var_field: 'phone', message: 'phone is not a valid phone number' },
    ]);
    expect([...settled.suppressedPhones!]).toEqual(['+14155550101', '+14155550102']);
  });

  it('returns the batch itself when nothing matched', () => {
    const batch = screenBatch([{ phone: '+14155550101' }], 'US', false);
    expect(settleSuppressed(batch, [null])).toBe(batch);
  });
});
