import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LeadImportDto } from './lead-import.dto';
import { IsOptional, IsString } from 'class-validator';
import { SEARCH_FIELDS } from '../search';
import { AuditLogQueryDto } from '../../audit/http';

// The lead search's and a lead page's schemas (docs/dashboard.md#leads). The shapes are the
// domain's (`LeadSearchPage`, `LeadRecord`, `LeadDeliveryPage`); the query values are checked by
// `parseLeadSearch` and `LeadDeliveries.page`, so the query DTOs check only that each parameter
// is given once and that no other is.

/** A lead as the search lists it. */
@ApiSchema({ name: 'LeadSummary' })
export class LeadSummaryDto {
  @ApiProperty({ type: 'integer', example: 19801 })
  id!: number;

  @ApiProperty({ type: 'integer', example: 42 })
  campaign_id!: number;

  @ApiProperty({ description: 'E.164', example: '+14155550100' })
  phone!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Alva' })
  first_name!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Treutel' })
  last_name!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'alva.treutel@example.com' })
  email!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Howe, Konopelski and Wyman' })
  company!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Operations Manager' })
  title!: string | null;

  @ApiProperty({ type: [String], description: 'The upload’s tags', example: ['open-house'] })
  tags!: string[];

  @ApiProperty({ description: 'The upload’s source', example: 'crm-sync' })
  source!: string;

  @ApiProperty({ format: 'uuid', description: 'The upload it came from' })
  import_id!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

/** A page of a lead search. */
@ApiSchema({ name: 'LeadSearchPage' })
export class LeadSearchPageDto {
  @ApiProperty({
    enum: SEARCH_FIELDS,
    description: 'What was matched: the whole phone, or an email or name prefix',
  })
  field!: string;

  @ApiProperty({
    description: 'What was searched for: the phone in E.164, or the prefix as given (trimmed)',
    example: '+14155550100',
  })
  value!: string;

  @ApiProperty({ type: [LeadSummaryDto] })
  items!: LeadSummaryDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass it as `cursor`, with the same `q` and `field`, for the next page',
  })
  next_cursor!: string | null;
}

/** `GET /dashboard/api/leads/{lead_id}`: the lead with its campaign and import. */
@ApiSchema({ name: 'LeadDetail' })
export class LeadDetailDto extends LeadSummaryDto {
  @ApiProperty({ example: 'Spring open house' })
  campaign_name!: string;

  @ApiProperty({ type: LeadImportDto })
  import!: LeadImportDto;
}

/** One attempt of a delivery in a lead's timeline. */
@ApiSchema({ name: 'LeadDeliveryAttempt' })
export class LeadDeliveryAttemptDto {
  @ApiProperty({ type: 'integer', description: 'Its id in the delivery log' })
  id!: number;

  @ApiProperty({ format: 'date-time' })
  attempted_at!: string;

  @ApiProperty({
    enum: ['succeeded', 'failed', 'in_flight'],
    description: 'A 2xx in time, anything else, or not finished yet',
  })
  outcome!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'null when no response came' })
  status_code!: number | null;

  @ApiProperty({ type: 'number', nullable: true, description: 'In ms; null while in flight' })
  duration_ms!: number | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'HTTP 500' })
  error!: string | null;
}

/** The endpoint a delivery went to. */
@ApiSchema({ name: 'LeadDeliveryEndpoint' })
export class LeadDeliveryEndpointDto {
  @ApiProperty({ type: 'integer', example: 7 })
  id!: number;

  @ApiProperty({ example: 'https://crm.example.com/hooks/leads' })
  url!: string;

  @ApiProperty({ type: 'string', nullable: true })
  description!: string | null;
}

/** One delivery of an event about the lead. */
@ApiSchema({ name: 'LeadDelivery' })
export class LeadDeliveryDto {
  @ApiProperty({ type: 'integer', description: 'The delivery (redeliver it by this id)' })
  id!: number;

  @ApiProperty({ format: 'uuid', description: 'The event’s id: the `webhook-id` sent' })
  webhook_id!: string;

  @ApiProperty({ example: 'lead.created' })
  event_type!: string;

  @ApiProperty({ type: LeadDeliveryEndpointDto })
  endpoint!: LeadDeliveryEndpointDto;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed', 'dropped', 'skipped'] })
  status!: string;

  @ApiProperty({ type: 'integer' })
  attempt_count!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'While it waits behind an earlier delivery of the lead to the same endpoint (per-lead ordering), that delivery’s id; null otherwise',
  })
  held_by!: number | null;

  @ApiProperty({ format: 'date-time', description: 'When the event was recorded' })
  created_at!: string;

  @ApiProperty({ type: [LeadDeliveryAttemptDto], description: 'Newest first' })
  attempts!: LeadDeliveryAttemptDto[];
}

/** A page of a lead's timeline, newest first. */
@ApiSchema({ name: 'LeadDeliveryPage' })
export class LeadDeliveryPageDto {
  @ApiProperty({ type: [LeadDeliveryDto] })
  items!: LeadDeliveryDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass it as `cursor` for the next page; null on the last page',
  })
  next_cursor!: string | null;

  @ApiProperty({
    type: 'integer',
    description: 'Days events, deliveries and attempts are kept: older ones are not listed',
    example: 30,
  })
  retention_days!: number;
}

/** The query of `GET /dashboard/api/leads/{lead_id}/deliveries`: `limit` and `cursor`. */
export class LeadDeliveriesQueryDto extends AuditLogQueryDto {}

/** The query of `GET /dashboard/api/campaigns/{campaign_id}/leads`. */
export class LeadSearchQueryDto extends AuditLogQueryDto {
  @IsOptional()
  @IsString()
  q?: string;

  @IsOptional()
  @IsString()
  field?: string;
}
