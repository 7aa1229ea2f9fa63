import { leadEvents } from './lead-events';
import type { AcceptedLead } from './lead-batch';
import type { CreatedLead, ImportContext } from './leads.repository';

const context: ImportContext = {
  importId: '0b9c2f4e-6a1d-4c8e-9f57-2d3a1b7c9e10',
  campaignId: 42,
  source: 'crm-sync',
  tags: ['vip'],
};

const lead = (phone: string, first_name: string | null = null) => ({
  phone,
  first_name,
  last_name: null,
  email: null,
  company: null,
  title: null,
});

// In lock (phone) order, as the service passes them.
const accepted: AcceptedLead[] = [
  { row: 2, lead: lead('+12123744203', 'Grace') },
  { row: 0, lead: lead('+14155552671', 'Ada') },
  { row: 1, lead: lead('+442079460958') },
];
const createdAt = new Date('2026-01-02T03:04:05.678Z');
const created: CreatedLead[] = [
  { id: 11, phone: '+442079460958', created_at: createdAt },
  { id: 10, phone: '+12123744203', created_at: createdAt },
];
const BOTH = new Set(['lead.created', 'leads.bulk_created']);

describe('leadEvents (docs/webhooks.md#events)', () => {
  it('builds lead.created per created lead in request order, then one leads.bulk_created', () => {
    expect(leadEvents(context, accepted, created, BOTH)).toEqual([
      {
        type: 'lead.created',
        data: {
          id: 11,
          campaign_id: 42,
          phone: '+442079460958',
          first_name: null,
          last_name: null,
          email: null,
          company: null,
          title: null,
          tags: ['vip'],
          source: 'crm-sync',
          import_id: context.importId,
          created_at: '2026-01-02T03:04:05.678Z',
        },
      },
      {
        type: 'lead.created',
        data: expect.objectContaining({ id: 10, first_name: 'Grace' }) as object,
      },
      {
        type: 'leads.bulk_created',
        data: {
          import_id: context.importId,
          campaign_id: 42,
          source: 'crm-sync',
          tags: ['vip'],
          lead_count: 2,
          lead_ids: [11, 10],
        },
      },
    ]);
  });

  it('leaves the accepted leads in their order', () => {
    const before = accepted.map((a) => a.row);
    leadEvents(context, accepted, created, BOTH);
    expect(accepted.map((a) => a.row)).toEqual(before);
  });

  it('builds only the subscribed types', () => {
    expect(
      leadEvents(context, accepted, created, new Set(['leads.bulk_created'])).map((e) => e.type),
    ).toEqual(['leads.bulk_created']);
    expect(
      leadEvents(context, accepted, created, new Set(['lead.created'])).map((e) => e.type),
    ).toEqual(['lead.created', 'lead.created']);
  });

  it('builds nothing when no lead was created or nobody subscribes', () => {
    expect(leadEvents(context, accepted, [], BOTH)).toEqual([]);
    expect(leadEvents(context, accepted, created, new Set())).toEqual([]);
    expect(leadEvents(context, accepted, created, new Set(['call.started']))).toEqual([]);
  });
});
