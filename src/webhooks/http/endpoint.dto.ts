import { ApiProperty, ApiPropertyOptional, ApiSchema, OmitType } from '@nestjs/swagger';
import {
  IsArray,
  IsBoolean,
  IsNumber,
  IsOptional,
  IsString,
  Validate,
  ValidateIf,
} from 'class-validator';
import { PING } from '../../delivery/attempts';
import {
  EVENT_TYPES,
  MAX_DESCRIPTION_LENGTH,
  MAX_URL_LENGTH,
  THROTTLE_IN_FLIGHT_BOUNDS,
  THROTTLE_RATE_BOUNDS,
  DEFAULT_SIGNATURE_SCHEME,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
  DISABLED_REASONS,
  FAILING_REASONS,
  type DisabledReason,
  type FailingReason,
  ENDPOINT_ORDERINGS,
  type EndpointOrdering,
  MAX_FILTER_LENGTH,
} from '..';
import { WebhookEndpointDto, WebhookEndpointHealthDto } from './webhook-endpoint.dto';
import { CustomHeaderDto, CustomHeaderInputDto, CustomHeaderList } from './custom-header.dto';
import type { EndpointHealthFigures, RecoveryProbeView, WebhookEndpointDetail } from '..';

// The dashboard's endpoint schemas. Request DTOs check types only: the values (URL rules, event
// types, lengths) are the domain's (`src/webhooks/endpoint-input.ts`), as for the CLI.

/** The delivery health of an endpoint (docs/api.md#webhook-reads, without its identity). */
@ApiSchema({ name: 'DashboardEndpointHealth' })
export class EndpointHealthDto
  extends OmitType(WebhookEndpointHealthDto, ['endpoint_id', 'url', 'is_enabled'] as const)
  implements EndpointHealthFigures {}

/**
 * An endpoint as the dashboard shows it: the public listing's fields, its health, why and since
 * when it is disabled, never its secret.
 */
@ApiSchema({ name: 'DashboardEndpoint' })
export class DashboardEndpointDto extends WebhookEndpointDto implements WebhookEndpointDetail {
  @ApiProperty({ type: EndpointHealthDto })
  health!: EndpointHealthDto;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'Until when the previous signing secret stays valid after a rotation; null when none is',
  })
  previous_secret_expires_at!: string | null;

  @ApiProperty({
    type: 'string',
    enum: DISABLED_REASONS,
    nullable: true,
    description:
      'Why the endpoint is disabled: `manual` (an admin or operator), `gone` (it answered 410 Gone), `auto` (failing with no success for `WEBHOOK_DISABLE_AFTER`); null while enabled',
  })
  disabled_reason!: DisabledReason | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the endpoint was disabled; null while enabled',
  })
  disabled_at!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'When the endpoint was last disabled: `disabled_at` while it is disabled, and the `disabled_at` it had once it is enabled again (where a replay of what it missed starts); null if it has not been disabled since this was recorded',
  })
  last_disabled_at!: string | null;

  @ApiProperty({
    type: 'string',
    enum: DISABLED_REASONS,
    nullable: true,
    description: 'Why the endpoint was last disabled, like `last_disabled_at`; null with it',
  })
  last_disabled_reason!: DisabledReason | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'Since when the endpoint is failing (most of the last hour’s attempts, or every attempt of the last 24 hours, failed); null while it is not',
  })
  failing_since!: string | null;

  @ApiProperty({
    type: 'string',
    enum: FAILING_REASONS,
    nullable: true,
    description:
      '`failure_rate`: more than half of at least 20 attempts in the last hour failed; `no_success`: every attempt of the last 24 hours failed; null while not failing',
  })
  failing_reason!: FailingReason | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'When a failing endpoint will be disabled automatically unless a delivery succeeds first; null while it is not failing',
  })
  auto_disable_at!: string | null;

  @ApiProperty({
    enum: SIGNATURE_SCHEMES,
    example: 'symmetric',
    description:
      'How deliveries are signed: `symmetric` (`v1,` HMAC-SHA256 with the endpoint’s `whsec_` secret) or `asymmetric` (`v1a,` ed25519, verified with `public_key`)',
  })
  signature_scheme!: SignatureScheme;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'whpk_mh6C7rme3ZqSHmAv3wOUyiqNoEoZt5/tj57Cx3Q4K3M=',
    description:
      'The `whpk_` ed25519 public key that verifies `v1a,` signatures, while `asymmetric`; null while `symmetric`. Not a secret',
  })
  public_key!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'whpk_mh6C7rme3ZqSHmAv3wOUyiqNoEoZt5/tj57Cx3Q4K3M=',
    description:
      'The `whpk_` public key of the previous key while it still signs (until `previous_secret_expires_at`) and is an ed25519 key; null otherwise',
  })
  previous_public_key!: string | null;

  @ApiProperty({
    type: [CustomHeaderDto],
    description:
      'Headers sent with every request to the endpoint, in order; secret values masked (docs/webhooks.md#custom-headers)',
  })
  custom_headers!: CustomHeaderDto[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'Most deliveries per second sent to the endpoint, across every worker; null: unlimited',
  })
  max_deliveries_per_second!: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Most attempts to the endpoint in flight at once; null: unlimited',
  })
  max_in_flight!: number | null;

  @ApiProperty({
    enum: ENDPOINT_ORDERINGS,
    example: 'none',
    description:
      "`per_lead`: each lead's deliveries are attempted one after another, in the order their events were recorded; `none`: as they come (docs/webhooks.md#per-lead-ordering)",
  })
  ordering!: EndpointOrdering;

  @ApiProperty({
    description:
      'Whether the endpoint comes back by itself: once disabled `auto`, it is probed with a signed ping on a back-off and enabled again on a 2xx (docs/webhooks.md#endpoints-that-come-back-by-themselves)',
  })
  auto_recover!: boolean;

  @ApiProperty({
    type: () => RecoveryProbeDto,
    nullable: true,
    description:
      'Its recovery probing while it is disabled `auto`, opted in, and probed or given up; null otherwise',
  })
  recovery_probe!: RecoveryProbeDto | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Its payload filter, a CEL expression over the event (docs/webhooks.md#payload-filters); null: every event of its subscribed types',
    example: 'data.source == "facebook"',
  })
  filter!: string | null;
}

/** The recovery probing of an endpoint (docs/webhooks.md#endpoints-that-come-back-by-themselves). */
@ApiSchema({ name: 'RecoveryProbe' })
export class RecoveryProbeDto implements RecoveryProbeView {
  @ApiProperty({ format: 'date-time', description: 'Since when it is probed: the window’s start' })
  since!: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the next probe is due; null once probing gave up',
  })
  next_probe_at!: string | null;

  @ApiProperty({ type: 'integer', description: 'Probes sent so far' })
  probes!: number;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the last probe was sent; null before the first',
  })
  last_probe_at!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'When probing gave up, its window (`WEBHOOK_RECOVERY_PROBE_FOR`) over without a success; null while it goes on',
  })
  gave_up_at!: string | null;
}

/**
 * The throttle's fields of an endpoint's create and update bodies (docs/webhooks.md#throttling):
 * types only; the bounds are the domain's (`validateThrottleLimit`).
 */
@ApiSchema({ name: 'EndpointThrottleRequest' })
export class EndpointThrottleRequestDto {
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: THROTTLE_RATE_BOUNDS.min,
    maximum: THROTTLE_RATE_BOUNDS.max,
    description:
      'Most deliveries per second sent to the endpoint, across every worker; null: unlimited (docs/webhooks.md#throttling)',
    example: 5,
  })
  @IsOptional()
  @IsNumber()
  max_deliveries_per_second?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: THROTTLE_IN_FLIGHT_BOUNDS.min,
    maximum: THROTTLE_IN_FLIGHT_BOUNDS.max,
    description: 'Most attempts to the endpoint in flight at once; null: unlimited',
    example: 2,
  })
  @IsOptional()
  @IsNumber()
  max_in_flight?: number | null;
}

/** Body of `POST /dashboard/api/campaigns/{campaign_id}/endpoints`. */
@ApiSchema({ name: 'CreateEndpointRequest' })
export class CreateEndpointRequestDto extends EndpointThrottleRequestDto {
  @ApiProperty({
    description: 'Absolute http or https URL without credentials (normalised when stored)',
    maxLength: MAX_URL_LENGTH,
    example: 'https://crm.example.com/hooks/campaign-api',
  })
  @IsString()
  url!: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: MAX_DESCRIPTION_LENGTH,
    description: 'A label; blank or null means none',
    example: 'CRM sync',
  })
  @IsOptional()
  @IsString()
  description?: string | null;

  @ApiProperty({
    enum: EVENT_TYPES,
    isArray: true,
    minItems: 1,
    description: 'The event types to deliver (duplicates are dropped)',
    example: ['lead.created'],
  })
  @IsArray()
  @IsString({ each: true })
  events!: string[];

  @ApiPropertyOptional({ default: true, description: 'Whether deliveries are made' })
  @ValidateIf((body: CreateEndpointRequestDto) => body.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    enum: SIGNATURE_SCHEMES,
    default: DEFAULT_SIGNATURE_SCHEME,
    description:
      '`symmetric`: `v1,` HMAC signatures with a `whsec_` secret (answered once); `asymmetric`: `v1a,` ed25519 signatures, verified with the public key (the secret key is never shown)',
  })
  @IsOptional()
  @IsString()
  signature_scheme?: SignatureScheme;

  @ApiPropertyOptional({
    type: [CustomHeaderInputDto],
    maxItems: 20,
    description: 'Headers to send with every request (docs/webhooks.md#custom-headers)',
  })
  @ValidateIf((body: CreateEndpointRequestDto) => body.headers !== undefined)
  @Validate(CustomHeaderList)
  headers?: CustomHeaderInputDto[];

  @ApiPropertyOptional({
    enum: ENDPOINT_ORDERINGS,
    default: 'none',
    description:
      "`per_lead`: each lead's deliveries are attempted one after another, in the order their events were recorded, other leads unaffected; `none`: as they come (docs/webhooks.md#per-lead-ordering)",
  })
  @IsOptional()
  @IsString()
  ordering?: EndpointOrdering;

  @ApiPropertyOptional({
    default: false,
    description:
      'Whether the endpoint comes back by itself once disabled `auto` (docs/webhooks.md#endpoints-that-come-back-by-themselves)',
  })
  @ValidateIf((body: CreateEndpointRequestDto) => body.auto_recover !== undefined)
  @IsBoolean()
  auto_recover?: boolean;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: MAX_FILTER_LENGTH,
    description:
      'A payload filter: a CEL expression over the event, checked against the subscribed types’ schemas (422 naming the line, column and problem); null or blank: every event (docs/webhooks.md#payload-filters)',
    example: 'data.source == "facebook" && "vip" in data.tags',
  })
  @IsOptional()
  @IsString()
  filter?: string | null;
}

/** Body of `POST /dashboard/api/endpoints/{endpoint_id}/signature-scheme`. */
@ApiSchema({ name: 'ChangeSignatureSchemeRequest' })
export class ChangeSignatureSchemeRequestDto {
  @ApiProperty({
    enum: SIGNATURE_SCHEMES,
    description: 'The scheme to sign with from now on; the current key keeps signing 24 hours',
  })
  @IsString()
  signature_scheme!: SignatureScheme;
}

/** Body of `PATCH /dashboard/api/endpoints/{endpoint_id}`: at least one field. */
@ApiSchema({ name: 'UpdateEndpointRequest' })
export class UpdateEndpointRequestDto extends EndpointThrottleRequestDto {
  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH, example: 'https://crm.example.com/hooks/v2' })
  @ValidateIf((body: UpdateEndpointRequestDto) => body.url !== undefined)
  @IsString()
  url?: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: MAX_DESCRIPTION_LENGTH,
    description: 'null or blank clears it',
  })
  @IsOptional()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ enum: EVENT_TYPES, isArray: true, minItems: 1 })
  @ValidateIf((body: UpdateEndpointRequestDto) => body.events !== undefined)
  @IsArray()
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({ description: 'false stops deliveries, true resumes them' })
  @ValidateIf((body: UpdateEndpointRequestDto) => body.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    type: [CustomHeaderInputDto],
    maxItems: 20,
    description:
      'The whole list of custom headers, replacing the current one (`[]` removes them all); a secret header given without `value` keeps its current value',
  })
  @ValidateIf((body: UpdateEndpointRequestDto) => body.headers !== undefined)
  @Validate(CustomHeaderList)
  headers?: CustomHeaderInputDto[];

  @ApiPropertyOptional({
    enum: ENDPOINT_ORDERINGS,
    description:
      "`per_lead`: each lead's deliveries are attempted one after another, in the order their events were recorded, other leads unaffected; `none`: as they come (docs/webhooks.md#per-lead-ordering)",
  })
  @IsOptional()
  @IsString()
  ordering?: EndpointOrdering;

  @ApiPropertyOptional({
    description:
      'true: the endpoint comes back by itself once disabled `auto`; false stops its probing (docs/webhooks.md#endpoints-that-come-back-by-themselves)',
  })
  @ValidateIf((body: UpdateEndpointRequestDto) => body.auto_recover !== undefined)
  @IsBoolean()
  auto_recover?: boolean;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: MAX_FILTER_LENGTH,
    description:
      'A payload filter: a CEL expression over the event, checked against the subscribed types’ schemas (422 naming the line, column and problem); null or blank: every event (docs/webhooks.md#payload-filters)',
    example: 'data.source == "facebook" && "vip" in data.tags',
  })
  @IsOptional()
  @IsString()
  filter?: string | null;
}

/** Answer of the creation: the endpoint and its signing secret, shown this once. */
@ApiSchema({ name: 'CreatedEndpoint' })
export class CreatedEndpointDto {
  @ApiProperty({ type: DashboardEndpointDto })
  endpoint!: DashboardEndpointDto;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The signing secret (`whsec_…`): shown now, then only by a recorded reveal; null for an `asymmetric` endpoint, whose public key is in `endpoint`',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string | null;
}

/** Answer of `POST /dashboard/api/endpoints/{endpoint_id}/secret/reveal`. */
@ApiSchema({ name: 'RevealedSecret' })
export class RevealedSecretDto {
  @ApiProperty({ description: 'The current signing secret', example: 'whsec_MfKQ9r8GKYqrTwjUPD8I' })
  secret!: string;
}

/**
 * Answer of `POST /dashboard/api/endpoints/{endpoint_id}/secret/rotate` and of
 * `…/signature-scheme`: the new key.
 */
@ApiSchema({ name: 'RotatedSecret' })
export class RotatedSecretDto {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The new signing secret, shown this once; null for `asymmetric` (its secret key is never shown)',
    example: 'whsec_c2VjcmV0',
  })
  secret!: string | null;

  @ApiProperty({ enum: SIGNATURE_SCHEMES, description: 'The scheme the new key signs with' })
  signature_scheme!: SignatureScheme;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'whpk_mh6C7rme3ZqSHmAv3wOUyiqNoEoZt5/tj57Cx3Q4K3M=',
    description: 'The new `whpk_` public key for `asymmetric`; null for `symmetric`',
  })
  public_key!: string | null;

  @ApiProperty({
    format: 'date-time',
    description: 'Until when the previous secret stays valid (24 hours from now)',
  })
  previous_secret_expires_at!: string;
}

/** Body of `POST /dashboard/api/endpoints/{endpoint_id}/test`. */
@ApiSchema({ name: 'TestEventRequest' })
export class TestEventRequestDto {
  @ApiPropertyOptional({
    enum: [PING, ...EVENT_TYPES],
    default: PING,
    description: '`ping` (the default), or an event type whose example payload is sent',
  })
  @IsOptional()
  @IsString()
  event_type?: string;
}
