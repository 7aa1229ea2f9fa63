import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InvalidInputError } from '../../src/common/domain-error';
import { MAX_INT4 } from '../../src/common/ids';
import { CampaignNotFoundError } from '../../src/campaigns/campaign-errors';
import { WebhookEventPublisher } from '../../src/delivery/outbox';
import { CALL_OUTCOMES, type CallLog, type CallOutcome } from './call-log.entity';
import { CallLogRepository } from './call-log.repository';

/** A call that has just ended, as the telephony integration reports it. */
export interface CompletedCall {
  /** The provider's id of the call: 1 to 64 characters, unique per campaign. */
  callId: string;
  /** The number called, E.164 (`+14155552671`). */
  phone: string;
  durationSeconds: number;
  outcome: CallOutcome;
}

/** What {@link CallLogService.completeCall} stored. */
export interface CompletedCallRecord {
  call: CallLog;
  /**
   * The id of the `call.completed` event (the `webhook-id` its deliveries carry), or null when
   * no enabled endpoint of the campaign subscribes to `call.completed` (nothing was recorded).
   */
  eventId: string | null;
}

const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * EXAMPLE ONLY (docs/architecture.md#worked-example-call-tracking): records completed calls and
 * announces each with a `call.completed` webhook event, through the delivery module's outbox
 * (docs/architecture.md#publishing-events).
 */
@Injectable()
export class CallLogService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly calls: CallLogRepository,
    private readonly publisher: WebhookEventPublisher,
  ) {}

  /**
   * Stores the call and its `call.completed` event in one transaction, then queues the event's
   * deliveries. Either both the `call_log` row and the event (with its deliveries) are
   * committed, or neither is and nothing is sent.
   *
   * @throws InvalidInputError naming the field for a bad value (nothing is written);
   *   CampaignNotFoundError for an unknown campaign; AlreadyExistsError when the campaign already
   *   has this call; any other error of the transaction, after its rollback.
   */
  async completeCall(campaignId: number, call: CompletedCall): Promise<CompletedCallRecord> {
    validate(call);
    if (!Number.isSafeInteger(campaignId) || campaignId < 1 || campaignId > MAX_INT4) {
      throw new CampaignNotFoundError(campaignId);
    }

    const { row, recorded } = await this.dataSource.transaction(async (manager) => {
      const row = await this.calls.insert(manager, { campaignId, ...call });
      const recorded = await this.publisher.record(manager, campaignId, [
        {
          type: 'call.completed',
          data: {
            call_id: row.callId,
            lead_id: null,
            campaign_id: campaignId,
            phone: row.phone,
            duration_seconds: row.durationSeconds,
            outcome: row.outcome,
            completed_at: row.createdAt.toISOString(),
          },
        },
      ]);
      return { row, recorded };
    });

    // After the commit only: never throws; what Redis does not take now, the sweeper queues.
    await this.publisher.dispatch(recorded);
    return { call: row, eventId: recorded.events[0]?.id ?? null };
  }
}

/** @throws InvalidInputError naming the first bad field. */
function validate(call: CompletedCall): void {
  if (typeof call.callId !== 'string' || call.callId.length < 1 || call.callId.length > 64) {
    throw InvalidInputError.field('callId', 'must be 1 to 64 characters');
  }
  if (typeof call.phone !== 'string' || !E164.test(call.phone)) {
    throw InvalidInputError.field('phone', 'must be an E.164 number such as +14155552671');
  }
  if (
    !Number.isSafeInteger(call.durationSeconds) ||
    call.durationSeconds < 0 ||
    call.durationSeconds > MAX_INT4
  ) {
    throw InvalidInputError.field(
      'durationSeconds',
      'must be a whole number of seconds, 0 or more',
    );
  }
  if (!(CALL_OUTCOMES as readonly string[]).includes(call.outcome)) {
    throw InvalidInputError.field('outcome', `must be one of ${CALL_OUTCOMES.join(', ')}`);
  }
}
