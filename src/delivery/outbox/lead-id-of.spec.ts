import { leadIdOf } from './webhook-event.publisher';

describe('leadIdOf (docs/dashboard.md#a-leads-page)', () => {
  it('reads lead.created’s data.id and the other types’ data.lead_id', () => {
    expect(leadIdOf('lead.created', { id: 19801, lead_id: 5 })).toBe(19801);
    expect(leadIdOf('lead.status_changed', { id: 7, lead_id: 19801 })).toBe(19801);
    expect(leadIdOf('call.completed', { lead_id: '19801' })).toBe(19801);
    expect(leadIdOf('form.submitted', { lead_id: 9007199254740991 })).toBe(9007199254740991);
  });

  it('is null for leads.bulk_created and for data that names no lead by a positive safe integer', () => {
    expect(leadIdOf('leads.bulk_created', { lead_ids: [1, 2], lead_id: 1 })).toBeNull();
    for (const value of [
      undefined,
      null,
      0,
      -1,
      1.5,
      '01',
      '1e3',
      ' 1',
      9007199254740992,
      {},
      [1],
    ]) {
      expect(leadIdOf('lead.converted', { lead_id: value })).toBeNull();
    }
    expect(leadIdOf('lead.created', { lead_id: 3 })).toBeNull();
  });
});
