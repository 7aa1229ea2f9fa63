import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  type ApiQueryOptions,
} from '@nestjs/swagger';
import type { SerializesTo } from '../../dashboard-kernel';
import {
  DeliveryService,
  DEFAULT_LOG_LIMIT,
  LOG_OUTCOMES,
  MAX_LOG_LIMIT,
} from '../../delivery/attempts';
import type { DeliveryLogPage } from '../../delivery/attempts';
import { WebhookEventPublisher } from '../../delivery/outbox';
import type { DeliveryLedger } from '../../delivery/analytics';
import { LEDGER_DEFAULT_DAYS, LEDGER_MAX_DAYS, parseLedgerDays } from '../../delivery/analytics';
import { WebhookEndpointAdmin, type EndpointChanges, type NewSigningKey } from '..';
import type { WebhookEndpointDetail } from '..';
import { ApiError } from '../../common/api-error';
import {
  DashboardAccess,
  DashboardController,
  CurrentActor,
  type DashboardActor,
  ApiCsrfHeader,
  ApiIdParam,
  ApiQueries,
  DashboardErrorResponses,
  checkedInput,
  DashboardIdPipe,
  OwnedParam,
  NulCheckedByRoute,
  PortalAccess,
} from '../../dashboard-kernel';
import {
  DeliveryAttemptResultDto,
  DeliveryLogPageDto,
  DeliveryLogQueryDto,
  LOG_EVENT_TYPES,
  DeliveryLedgerDto,
  DeliveryLedgerQueryDto,
} from '../../delivery/http';
import {
  ChangeSignatureSchemeRequestDto,
  DashboardEndpointDto,
  RevealedSecretDto,
  RotatedSecretDto,
  TestEventRequestDto,
  UpdateEndpointRequestDto,
} from './endpoint.dto';
import { RevealedHeaderDto, RevealHeaderRequestDto } from './custom-header.dto';
import type { Owned } from '../../common/owned-id';

/** The delivery log's query parameters (docs/dashboard.md#delivery-log), in this order. */
const DELIVERY_LOG_QUERY: ApiQueryOptions[] = [
  { name: 'outcome', required: false, enum: LOG_OUTCOMES },
  {
    name: 'event_type',
    required: false,
    enum: LOG_EVENT_TYPES,
    description: 'The `type` of the body sent; `ping` for pings only',
  },
  {
    name: 'from',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: 'Attempts at or after this time (ISO 8601 with a zone)',
  },
  {
    name: 'to',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: 'Attempts before this time (exclusive; later than `from`)',
  },
  {
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LOG_LIMIT, default: DEFAULT_LOG_LIMIT },
  },
  {
    name: 'cursor',
    required: false,
    schema: { type: 'string' },
    description: 'The `next_cursor` of the previous page, unchanged',
  },
];

/**
 * `/dashboard/api/endpoints/{endpoint_id}…`: one webhook endpoint, its signing secret, test
 * events, delivery log and delivery ledger (docs/dashboard.md#routes). Every route declares its
 * `endpoint_id` with `@DashboardAccess`, so the guard answers an endpoint of another account
 * with `404`, like one that does not exist, before the route runs; the route then calls the
 * service the CLI uses. Every change is recorded in the audit log with the user and IP, never
 * a secret.
 */
@ApiTags('endpoints')
@ApiIdParam('endpoint_id', 'Endpoint id')
@DashboardController('endpoints')
export class EndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointAdmin,
    private readonly deliveries: DeliveryService,
    private readonly publisher: WebhookEventPublisher,
  ) {}

  /** The endpoint with its health and until when its previous secret stays valid. */
  @Get(':endpoint_id')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints', 'deliveries')
  @ApiOperation({ summary: 'Read a webhook endpoint', operationId: 'getEndpoint' })
  @ApiOkResponse({ type: DashboardEndpointDto })
  @DashboardErrorResponses(400, 401, 404, 500, 503)
  get(@OwnedParam('endpoint_id') id: Owned<'endpoint'>): Promise<WebhookEndpointDetail> {
    return this.endpoints.detail(id);
  }

  /**
   * Changes any of `url`, `description`, `events`, `enabled`, `headers`,
   * `max_deliveries_per_second`, `max_in_flight` (docs/webhooks.md#throttling), `ordering`
   * (docs/webhooks.md#per-lead-ordering), `auto_recover`
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves); recorded as
   * `max_deliveries_per_second`, `max_in_flight` (docs/webhooks.md#throttling), `filter`
   * (docs/webhooks.md#payload-filters); recorded as
   * `endpoint.update`. The answer shows the secret header values this change set, this once.
   */
  @Patch(':endpoint_id')
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints')
  // A NUL in a custom header is refused by its own rule, naming the header.
  @NulCheckedByRoute('headers')
  @ApiOperation({ summary: 'Change a webhook endpoint', operationId: 'updateEndpoint' })
  @ApiCsrfHeader()
  @ApiBody({ type: UpdateEndpointRequestDto })
  @ApiOkResponse({ type: DashboardEndpointDto, description: 'The endpoint as changed' })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  async update(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('endpoint_id') id: Owned<'endpoint'>,
    @Body() body: Record<string, unknown>,
  ): Promise<WebhookEndpointDetail> {
    const input = checkedInput(UpdateEndpointRequestDto, body);
    const changes: EndpointChanges = {
      url: input.url,
      events: input.events,
      description: input.description,
      enabled: input.enabled,
      headers: input.headers,
      maxDeliveriesPerSecond: input.max_deliveries_per_second,
      maxInFlight: input.max_in_flight,
      ordering: input.ordering,
      autoRecover: input.auto_recover,
      filter: input.filter,
    };
    if (Object.values(changes).every((value) => value === undefined)) {
      throw ApiError.validationFailed([
        'nothing to change: give url, description, events, enabled, headers, max_deliveries_per_second, max_in_flight, ordering, auto_recover or filter',
      ]);
    }
    const updated = await this.endpoints.update(id, changes, actor);
    // New limits apply at once to the jobs the throttle put back (docs/webhooks.md#throttling).
    if (changes.maxDeliveriesPerSecond !== undefined || changes.maxInFlight !== undefined) {
      await this.publisher.wakeThrottled(id);
    }
    // The secret header values this change set are answered this once.
    return {
      ...(await this.endpoints.detail(id)),
      custom_headers: updated.custom_headers,
    };
  }

  /** Deletes the endpoint with its deliveries and log; recorded as `endpoint.delete`. */
  @Delete(':endpoint_id')
  @HttpCode(204)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints')
  @ApiOperation({ summary: 'Delete a webhook endpoint', operationId: 'deleteEndpoint' })
  @ApiCsrfHeader()
  @ApiNoContentResponse({ description: 'Deleted, with its deliveries and delivery log' })
  @DashboardErrorResponses(400, 401, 403, 404, 500, 503)
  async delete(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
  ): Promise<void> {
    await this.endpoints.delete(id, actor);
  }

  /**
   * The current signing secret. Recorded as `secret.reveal` before it is answered: when the
   * entry cannot be written, the secret is not shown. An `asymmetric` endpoint's secret key is
   * never shown: `409`.
   */
  @Post(':endpoint_id/secret/reveal')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints')
  @ApiOperation({
    summary: 'Reveal the signing secret (recorded in the audit log)',
    operationId: 'revealEndpointSecret',
  })
  @ApiCsrfHeader()
  @ApiOkResponse({ type: RevealedSecretDto })
  @DashboardErrorResponses(400, 401, 403, 404, 409, 415, 500, 503)
  async revealSecret(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('endpoint_id') id: Owned<'endpoint'>,
  ): Promise<{ secret: string }> {
    const { secret } = await this.endpoints.revealSecret(id, actor);
    return { secret };
  }

  /**
   * The value of a secret custom header (docs/webhooks.md#custom-headers). Read and recorded as
   * `header.reveal` in one transaction: when the entry cannot be written, the value is not
   * shown. An endpoint without a secret header of that name is `404`.
   */
  @Post(':endpoint_id/headers/reveal')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints')
  @ApiOperation({
    summary: 'Reveal a secret custom header (recorded in the audit log)',
    operationId: 'revealEndpointHeader',
  })
  @ApiCsrfHeader()
  @ApiBody({ type: RevealHeaderRequestDto })
  @ApiOkResponse({ type: RevealedHeaderDto })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  async revealHeader(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('endpoint_id') id: Owned<'endpoint'>,
    @Body() body: Record<string, unknown>,
  ): Promise<{ name: string; value: string }> {
    const input = checkedInput(RevealHeaderRequestDto, body);
    const { name, value } = await this.endpoints.revealHeader(id, input.name, actor);
    return { name, value };
  }

  /**
   * A new signing secret (shown once), or for an `asymmetric` endpoint a new ed25519 key pair
   * (its public key answered, its secret key never); the previous key stays valid 24 hours,
   * during which every delivery carries both signatures. Recorded as `secret.rotate`.
   */
  @Post(':endpoint_id/secret/rotate')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints')
  @ApiOperation({ summary: 'Rotate the signing secret', operationId: 'rotateEndpointSecret' })
  @ApiCsrfHeader()
  @ApiOkResponse({ type: RotatedSecretDto })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 500, 503)
  async rotateSecret(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
  ): Promise<NewSigningKey & { previous_secret_expires_at: Date }> {
    const { id: _id, ...rotated } = await this.endpoints.rotateSecret(id, actor);
    return rotated;
  }

  /**
   * Switches the endpoint to the other signature scheme (docs/webhooks.md#changing-the-signature-scheme):
   * a new key of that scheme signs from now on, and the current key keeps signing for 24 hours,
   * so deliveries carry both a `v1,` and a `v1a,` signature until then. Answers like a
   * rotation; the same scheme again is `409`. Recorded as `secret.change_scheme`.
   */
  @Post(':endpoint_id/signature-scheme')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints')
  @ApiOperation({
    summary: 'Change the signature scheme (symmetric or asymmetric)',
    operationId: 'changeEndpointSignatureScheme',
  })
  @ApiCsrfHeader()
  @ApiBody({ type: ChangeSignatureSchemeRequestDto })
  @ApiOkResponse({ type: RotatedSecretDto })
  @DashboardErrorResponses(400, 401, 403, 404, 409, 415, 422, 500, 503)
  async changeSignatureScheme(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Body() body: Record<string, unknown>,
  ): Promise<NewSigningKey & { previous_secret_expires_at: Date }> {
    const input = checkedInput(ChangeSignatureSchemeRequestDto, body);
    const { id: _id, ...changed } = await this.endpoints.changeSignatureScheme(
      id,
      input.signature_scheme,
      actor,
    );
    return changed;
  }

  /**
   * Sends a ping, or an example event of `event_type`, to the endpoint now (even disabled or
   * not subscribed), once: the attempt with its status, duration and the start of the response.
   * It counts in the endpoint's health and shows in its log. Recorded as `endpoint.test`.
   */
  @Post(':endpoint_id/test')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('endpoints')
  @ApiOperation({ summary: 'Send a test event', operationId: 'sendTestEvent' })
  @ApiCsrfHeader()
  @ApiBody({ type: TestEventRequestDto })
  @ApiOkResponse({
    type: DeliveryAttemptResultDto,
    description: 'The attempt, whatever the receiver answered (`success` tells)',
  })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  async sendTest(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Body() body: Record<string, unknown>,
  ): Promise<SerializesTo<DeliveryAttemptResultDto, 'attempted_at'>> {
    const input = checkedInput(TestEventRequestDto, body);
    return this.deliveries.sendTest(id, input.event_type, actor);
  }

  /**
   * The delivery ledger (docs/dashboard.md#delivery-ledger): for each of the last `days` UTC
   * days (1–90, default 30), today first, the deliveries created for the endpoint and where
   * they stand. The endpoint is checked first (another account's: `404`), then the query: an
   * unknown or repeated parameter is `422`, a `days` that is not a whole number from 1 to 90
   * is `400 bad_request`.
   */
  @Get(':endpoint_id/ledger')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @ApiOperation({ summary: 'Read an endpoint’s delivery ledger', operationId: 'getDeliveryLedger' })
  @ApiQueries([
    {
      name: 'days',
      required: false,
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: LEDGER_MAX_DAYS,
        default: LEDGER_DEFAULT_DAYS,
      },
      description: 'How many UTC days, today included',
    },
  ])
  @ApiOkResponse({ type: DeliveryLedgerDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  async ledger(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Query() query: Record<string, unknown>,
  ): Promise<DeliveryLedger> {
    const days = parseLedgerDays(checkedInput(DeliveryLedgerQueryDto, query).days);
    if (days === null) {
      throw ApiError.badRequest(`days must be an integer from 1 to ${LEDGER_MAX_DAYS}`);
    }
    return this.deliveries.deliveryLedger(id, days);
  }

  /** The delivery log: finished attempts, newest first, filtered and keyset-paged. */
  @Get(':endpoint_id/attempts')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  @PortalAccess('deliveries')
  @ApiOperation({ summary: 'Read an endpoint’s delivery log', operationId: 'listAttempts' })
  @ApiQueries(DELIVERY_LOG_QUERY)
  @ApiOkResponse({ type: DeliveryLogPageDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  async attempts(
    @CurrentActor() actor: DashboardActor,
    @Param('endpoint_id', DashboardIdPipe) id: number,
    @Query() query: Record<string, unknown>,
  ): Promise<DeliveryLogPage> {
    return this.deliveries.deliveryLog(id, checkedInput(DeliveryLogQueryDto, query));
  }
}
