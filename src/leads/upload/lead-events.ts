import type { EventInput } from '../../delivery/outbox';
import type { AcceptedLead } from './lead-batch';
import type { CreatedLead, ImportContext } from './leads.repository';

/**
 * The outbox events of an import (docs/webhooks.md#events, payloads in
 * docs/webhooks.md#payloads): `lead.created` per created lead, in request order, and one
 * `leads.bulk_created` when at least one lead was created; only the types some enabled
 * endpoint subscribes to are built. Pure: no I/O.
 *
 * @param accepted the leads sent to the insert (any order).
 * @param created the leads the insert created (an accepted lead the campaign had is absent).
 * @param subscribed the event types the campaign's enabled endpoints subscribe to.
 * @returns the events to record, `lead.created` first; none when nothing was created.
 */
export function leadEvents(
  context: ImportContext,
  accepted: AcceptedLead[],
  created: CreatedLead[],
  subscribed: ReadonlySet<string>,
): EventInput[] {
  if (created.length === 0 || subscribed.size === 0) return [];
  const perLead = subscribed.has('lead.created');
  const createdByPhone = new Map(created.map((lead) => [lead.phone, lead]));
  const events: EventInput[] = [];
  const leadIds: number[] = [];
  const inRequestOrder = [...accepted].sort((a, b) => a.row - b.row);
  for (const { lead } of inRequestOrder) {
    const stored = createdByPhone.get(lead.phone);
    if (!stored) continue;
    leadIds.push(stored.id);
    if (!perLead) continue;
    events.push({
      type: 'lead.created',
      data: {
        id: stored.id,
        campaign_id: context.campaignId,
        phone: lead.phone,
        first_name: lead.first_name,
        last_name: lead.last_name,
        email: lead.email,
        company: lead.company,
        title: lead.title,
        tags: context.tags,
        source: context.source,
        import_id: context.importId,
        created_at: stored.created_at.toISOString(),
      },
    });
  }
  if (!subscribed.has('leads.bulk_created')) return events;
  events.push({
    type: 'leads.bulk_created',
    data: {
      import_id: context.importId,
      campaign_id: context.campaignId,
      source: context.source,
      tags: context.tags,
      lead_count: leadIds.length,
      lead_ids: leadIds,
    },
  });
  return events;
}
