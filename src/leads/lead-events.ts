import type { EntityManager } from 'typeorm';
import type { CreatedLead, ImportContext } from './leads.repository';
import type { NormalizedLead } from './lead-validator';

/** A lead created by an import, with everything a `lead.created` event carries (CONTRACT 6). */
export interface ImportedLead extends NormalizedLead, CreatedLead {}

/**
 * The seam through which an upload records its outbox events (`lead.created` per created
 * lead, `leads.bulk_created` per import) in the upload's own transaction (CONTRACT 4.4, 6).
 * The DeliveryModule provides it under {@link LEAD_EVENTS_RECORDER}; without one, uploads
 * record no events.
 */
export interface LeadEventsRecorder {
  recordImport(
    manager: EntityManager,
    context: ImportContext,
    created: ImportedLead[],
  ): Promise<void>;
}

/** Injection token of the optional {@link LeadEventsRecorder}. */
export const LEAD_EVENTS_RECORDER = Symbol('LEAD_EVENTS_RECORDER');
