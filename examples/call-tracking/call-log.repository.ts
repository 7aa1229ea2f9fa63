import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CampaignNotFoundError } from '../../src/campaigns/campaign-errors';
import { AlreadyExistsError } from '../../src/common/domain-error';
import { CallLog } from './call-log.entity';

/** A `call_log` row about to be inserted. */
export type NewCallLog = Pick<
  CallLog,
  'campaignId' | 'callId' | 'phone' | 'durationSeconds' | 'outcome'
>;

/** The PostgreSQL error under TypeORM's `QueryFailedError`, when there is one. */
function driverError(error: unknown): { code?: unknown; constraint?: unknown } | undefined {
  return (error as { driverError?: { code?: unknown; constraint?: unknown } } | null)?.driverError;
}

/**
 * EXAMPLE ONLY: every query on `call_log` (docs/architecture.md#modules-and-tables). Writes
 * take the caller's transaction (`manager`), so a call and the events that announce it commit
 * together.
 */
@Injectable()
export class CallLogRepository {
  /**
   * Inserts a call in the caller's transaction.
   * @returns the row with its id and `createdAt`.
   * @throws CampaignNotFoundError when the campaign does not exist; AlreadyExistsError when the
   *   campaign already has a call with this `callId`. Either way the transaction is aborted.
   */
  async insert(manager: EntityManager, fields: NewCallLog): Promise<CallLog> {
    try {
      return await manager.save(CallLog, manager.create(CallLog, fields));
    } catch (error) {
      const cause = driverError(error);
      if (cause?.code === '23503' && cause.constraint === 'fk_call_log_campaign') {
        throw new CampaignNotFoundError(fields.campaignId);
      }
      if (cause?.code === '23505' && cause.constraint === 'uq_call_log_campaign_id_call_id') {
        throw new AlreadyExistsError(
          `call ${fields.callId} of campaign ${fields.campaignId} is already recorded`,
        );
      }
      throw error;
    }
  }
}
