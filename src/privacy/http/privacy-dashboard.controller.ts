import { Body, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ApiError } from '../../common/api-error';
import { declaredContentLength } from '../../common/http-conventions';
import {
  ApiCsrfHeader,
  ApiQueries,
  checkedInput,
  CurrentUserActor,
  DashboardAccess,
  DashboardController,
  DashboardErrorResponses,
  type DashboardUserActorWithRole,
} from '../../dashboard-kernel';
import { UsersService } from '../../users';
import {
  ERASURE_LIST_DEFAULT,
  ERASURE_LIST_MAX,
  ErasureService,
  SUPPRESSION_CSV_MAX_BYTES,
  Suppressions,
  type ErasureReceiptView,
  type SuppressionImportOutcome,
} from '..';
import {
  DashboardErasureReceiptDto,
  DashboardErasureRequestDto,
  DashboardPersonRequestDto,
  SuppressionAddedDto,
  SuppressionImportDto,
  SuppressionListSizeDto,
  SuppressionRemovedDto,
} from './privacy-dashboard.dto';

/** An erasure receipt as the dashboard shows it (docs/dashboard.md#privacy): no keyed hash. */
export interface DashboardErasureReceipt {
  id: string;
  campaign_id: number | null;
  created_at: string;
  requested_by: string;
  requested_by_email: string | null;
  suppressed: boolean;
  by_phone: boolean;
  by_email: boolean;
  counts: ErasureReceiptView['counts'];
}

/**
 * A raw request body read whole, stopping as soon as it passes `max` bytes.
 * @returns the bytes, or null when the body is larger than `max` (the rest is left unread).
 */
async function readAtMost(body: Readable, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body.iterator({ destroyOnReturn: false })) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += bytes.length;
    if (size > max) return null;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/**
 * `/dashboard/api/privacy/…` (docs/dashboard.md#privacy, docs/privacy.md): an admin erases a
 * person, reads the account's erasure receipts, and manages the suppression list (its size, add
 * one, remove one, import a CSV) through `ErasureService` and `Suppressions`, which audit each
 * change as the signed-in user (`erasure.create`, `suppression.add`, `suppression.remove`,
 * `suppression.import`, counts only). Viewers are refused (`403`), portal sessions too. No
 * answer names the person erased or listed: not the phone, the email or their keyed hashes.
 */
@ApiTags('privacy')
@DashboardController('privacy')
export class PrivacyDashboardController {
  constructor(
    private readonly erasures: ErasureService,
    private readonly suppressions: Suppressions,
    private readonly users: UsersService,
  ) {}

  /**
   * Erases one person (phone and/or email) in one campaign or in the whole account; `201` with
   * the receipt's counts. Irreversible.
   * @throws ApiError 422 for a bad phone, email, region or body (nothing erased); 404 for a
   *   campaign that is not the account's.
   */
  @Post('erasures')
  @HttpCode(201)
  @DashboardAccess('admin')
  @ApiOperation({
    summary: 'Erase a person by phone and/or email (irreversible)',
    operationId: 'createDashboardErasure',
  })
  @ApiCsrfHeader()
  @ApiBody({ type: DashboardErasureRequestDto })
  @ApiCreatedResponse({ type: DashboardErasureReceiptDto, description: 'Erased; the receipt' })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  async erase(
    @CurrentUserActor() actor: DashboardUserActorWithRole,
    @Body() body: Record<string, unknown>,
  ): Promise<DashboardErasureReceipt> {
    const input = checkedInput(DashboardErasureRequestDto, body);
    const receipt = await this.erasures.erase(
      actor.accountId,
      {
        campaignId: input.campaign_id ?? null,
        phone: input.phone,
        email: input.email,
        region: input.region,
        suppress: input.suppress,
      },
      actor,
    );
    return (await this.shown(actor.accountId, [receipt]))[0];
  }

  /** The account's latest erasure receipts, newest first. */
  @Get('erasures')
  @DashboardAccess('admin')
  @ApiOperation({
    summary: 'List the account’s latest erasure receipts',
    operationId: 'listDashboardErasures',
  })
  @ApiQueries([
    {
      name: 'limit',
      required: false,
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: ERASURE_LIST_MAX,
        default: ERASURE_LIST_DEFAULT,
      },
    },
  ])
  @ApiOkResponse({ type: [DashboardErasureReceiptDto], description: 'Newest first' })
  @DashboardErrorResponses(401, 403, 422, 500, 503)
  async list(
    @CurrentUserActor() actor: DashboardUserActorWithRole,
    @Query('limit') limit: unknown,
  ): Promise<DashboardErasureReceipt[]> {
    if (limit !== undefined && typeof limit !== 'string') {
      throw ApiError.validationFailed(['limit must be given once']);
    }
    return this.shown(actor.accountId, await this.erasures.list(actor.accountId, limit));
  }

  /** The suppression list's size: `{entries}`, never the entries. */
  @Get('suppressions')
  @DashboardAccess('admin')
  @ApiOperation({
    summary: 'Count the suppression list’s entries',
    operationId: 'countSuppressions',
  })
  @ApiOkResponse({ type: SuppressionListSizeDto })
  @DashboardErrorResponses(401, 403, 500, 503)
  count(@CurrentUserActor() actor: DashboardUserActorWithRole): Promise<{ entries: number }> {
    return this.suppressions.count(actor.accountId);
  }

  /** Adds one person's phone and/or email to the list; `added` 0 when listed already. */
  @Post('suppressions')
  @HttpCode(200)
  @DashboardAccess('admin')
  @ApiOperation({
    summary: 'Add a phone and/or email to the suppression list',
    operationId: 'addSuppression',
  })
  @ApiCsrfHeader()
  @ApiBody({ type: DashboardPersonRequestDto })
  @ApiOkResponse({ type: SuppressionAddedDto })
  @DashboardErrorResponses(400, 401, 403, 415, 422, 500, 503)
  add(
    @CurrentUserActor() actor: DashboardUserActorWithRole,
    @Body() body: Record<string, unknown>,
  ): Promise<{ added: number }> {
    const input = checkedInput(DashboardPersonRequestDto, body);
    return this.suppressions.add(actor.accountId, input, actor);
  }

  /** Removes one person's phone and/or email from the list; `removed` 0 when not listed. */
  @Post('suppressions/remove')
  @HttpCode(200)
  @DashboardAccess('admin')
  @ApiOperation({
    summary: 'Remove a phone and/or email from the suppression list',
    operationId: 'removeSuppression',
  })
  @ApiCsrfHeader()
  @ApiBody({ type: DashboardPersonRequestDto })
  @ApiOkResponse({ type: SuppressionRemovedDto })
  @DashboardErrorResponses(400, 401, 403, 415, 422, 500, 503)
  remove(
    @CurrentUserActor() actor: DashboardUserActorWithRole,
    @Body() body: Record<string, unknown>,
  ): Promise<{ removed: number }> {
    const input = checkedInput(DashboardPersonRequestDto, body);
    return this.suppressions.remove(actor.accountId, input, actor);
  }

  /**
   * Imports a CSV of phones and emails, sent as the raw body (`application/octet-stream`) and
   * read up to {@link SUPPRESSION_CSV_MAX_BYTES}: `413` as soon as it is larger (at once when
   * `Content-Length` says so; the connection is closed), `422` for a file that is not UTF-8 text
   * or names too many identifiers; nothing is added then. Formula cells are refused and counted.
   */
  @Post('suppressions/import')
  @HttpCode(200)
  @DashboardAccess('admin')
  @ApiOperation({
    summary: 'Import a CSV of phones and emails into the suppression list',
    operationId: 'importSuppressions',
  })
  @ApiQueries([
    {
      name: 'region',
      required: false,
      schema: { type: 'string', minLength: 2, maxLength: 2 },
      description: 'Region (ISO 3166-1 alpha-2) for phones without +',
    },
  ])
  @ApiCsrfHeader()
  @ApiConsumes('application/octet-stream')
  @ApiBody({
    description: `The CSV’s bytes (UTF-8), at most ${SUPPRESSION_CSV_MAX_BYTES / (1024 * 1024)} MiB: every non-empty cell one phone or email`,
    schema: { type: 'string', format: 'binary' },
  })
  @ApiOkResponse({ type: SuppressionImportDto })
  @DashboardErrorResponses(400, 401, 403, 413, 415, 422, 500, 503)
  async importCsv(
    @CurrentUserActor() actor: DashboardUserActorWithRole,
    @Query('region') region: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuppressionImportOutcome> {
    const body = request.body;
    if (!(body instanceof Readable)) {
      throw new ApiError(
        415,
        'unsupported_media_type',
        'Content-Type must be application/octet-stream: send the CSV’s bytes as the body',
      );
    }
    const declared = declaredContentLength(request);
    const file =
      declared !== null && declared > SUPPRESSION_CSV_MAX_BYTES
        ? null
        : await readAtMost(body, SUPPRESSION_CSV_MAX_BYTES);
    if (file === null) {
      // Refused unread (or read no further): the connection is closed after the answer.
      void reply.header('connection', 'close');
      throw new ApiError(
        413,
        'payload_too_large',
        `The CSV must be at most ${SUPPRESSION_CSV_MAX_BYTES / (1024 * 1024)} MiB`,
      );
    }
    return this.suppressions.importCsv(actor.accountId, file, region, actor);
  }

  /** Receipts without their hashes, with the email of the account's user who asked. */
  private async shown(
    accountId: number,
    receipts: ErasureReceiptView[],
  ): Promise<DashboardErasureReceipt[]> {
    const wanted = receipts.some((r) => r.requested_by.startsWith('user:'));
    const emails = new Map(
      wanted ? (await this.users.list(accountId)).map((u) => [`user:${u.id}`, u.email]) : [],
    );
    return receipts.map((r) => ({
      id: r.id,
      campaign_id: r.campaign_id,
      created_at: r.created_at,
      requested_by: r.requested_by,
      requested_by_email: emails.get(r.requested_by) ?? null,
      suppressed: r.suppressed,
      by_phone: r.phone_hash !== null,
      by_email: r.email_hash !== null,
      counts: r.counts,
    }));
  }
}
