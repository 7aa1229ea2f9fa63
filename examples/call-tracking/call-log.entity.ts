import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Campaign } from '../../src/campaigns/campaign.entity';

/** How a call ended. */
export const CALL_OUTCOMES = ['answered', 'no_answer', 'busy', 'failed'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/**
 * EXAMPLE ONLY (docs/architecture.md#worked-example-call-tracking): one completed call of a
 * campaign. The `call_log` table belongs to `CallTrackingModule`; its schema is
 * {@link CreateCallLogExample}. `callId` is the telephony provider's id, unique per campaign.
 */
@Entity({ name: 'call_log' })
@Unique('uq_call_log_campaign_id_call_id', ['campaignId', 'callId'])
export class CallLog {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  // A foreign key to another module's table is declared, never queried (as lead and
  // webhook_event do): the campaign itself is read through CampaignsService.
  @ManyToOne(() => Campaign, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_call_log_campaign' })
  campaign?: Campaign;

  @Column({ name: 'call_id', type: 'varchar', length: 64 })
  callId!: string;

  /** The number called, E.164. */
  @Column({ type: 'varchar', length: 16 })
  phone!: string;

  @Column({ name: 'duration_seconds', type: 'integer' })
  durationSeconds!: number;

  @Column({ type: 'varchar', length: 16 })
  outcome!: CallOutcome;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
