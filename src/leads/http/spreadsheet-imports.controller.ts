import { Body, Delete, Get, HttpCode, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ApiError } from '../../common/api-error';
import { declaredContentLength } from '../../common/http-conventions';
import { contactsAsSeenBy, sampleRowsAsSeenBy } from '../../privacy/http';
import { complianceOptions } from '..';
import {
  FileTooLargeError,
  UploadCapacityError,
  SPREADSHEET_MAX_BYTES,
  SpreadsheetImports,
  type PreviewRow,
  type SpreadsheetImportSummary,
  type SpreadsheetImportView,
} from '../spreadsheet';
import {
  ApiCsvDownload,
  csvDownload,
  DashboardAccess,
  DashboardController,
  CurrentActor,
  CurrentUserActor,
  type DashboardActor,
  type DashboardUserActorWithRole,
  ApiCsrfHeader,
  ApiIdParam,
  ApiQueries,
  DashboardErrorResponses,
  checkedInput,
  OwnedParam,
} from '../../dashboard-kernel';
import {
  SpreadsheetImportDto,
  SpreadsheetImportSummaryDto,
  SpreadsheetPreviewDto,
  SpreadsheetPreviewRequestDto,
  StartSpreadsheetImportRequestDto,
} from './spreadsheet-import.dto';
import type { Owned } from '../../common/owned-id';

const ApiSpreadsheetImportIdParam = () =>
  ApiParam({ name: 'import_id', schema: { type: 'string', format: 'uuid' } });

/**
 * `/dashboard/api/campaigns/{campaign_id}/spreadsheet-imports`
 * (docs/dashboard.md#spreadsheet-imports): upload a CSV or XLSX file into a campaign (an
 * admin), and list the campaign's spreadsheet imports. Another account's campaign is `404`.
 */
@ApiTags('spreadsheet imports')
@DashboardController('campaigns')
export class CampaignSpreadsheetImportsController {
  constructor(private readonly spreadsheets: SpreadsheetImports) {}

  /**
   * Takes the file as the raw request body (`application/octet-stream`), received into a local
   * file and read in a parse thread before anything is stored; `201` with its header row, sample
   * rows and suggested mapping. Nothing is kept when the file is refused: `413` over the size
   * limit (at once when `Content-Length` says so), `429` with `Retry-After` when the account or
   * the process has its most uploads in progress (docs/security.md#spreadsheet-uploads).
   */
  @Post(':campaign_id/spreadsheet-imports')
  @HttpCode(201)
  @DashboardAccess('admin', { resource: 'campaign', param: 'campaign_id' })
  @ApiOperation({
    summary: 'Upload a CSV or XLSX file to import into the campaign',
    operationId: 'uploadSpreadsheet',
  })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiQueries([
    {
      name: 'file_name',
      required: false,
      schema: { type: 'string', maxLength: 255 },
      description: 'The file’s name, as shown in the list',
    },
  ])
  @ApiCsrfHeader()
  @ApiConsumes('application/octet-stream')
  @ApiBody({
    description: `The file’s bytes: CSV (UTF-8) or XLSX, at most ${SPREADSHEET_MAX_BYTES / (1024 * 1024)} MiB`,
    schema: { type: 'string', format: 'binary' },
  })
  @ApiCreatedResponse({ type: SpreadsheetImportDto })
  @DashboardErrorResponses(400, 401, 403, 404, 413, 415, 422, 429, 500, 503)
  async upload(
    @CurrentUserActor() actor: DashboardUserActorWithRole,
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
    @Query('file_name') fileName: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SpreadsheetImportView> {
    const body = request.body;
    if (!(body instanceof Readable)) {
      throw new ApiError(
        415,
        'unsupported_media_type',
        'Content-Type must be application/octet-stream: send the file’s bytes as the body',
      );
    }
    try {
      return await this.spreadsheets.upload(
        actor.accountId,
        campaignId,
        actor.userId,
        fileName,
        // Left undestroyed when the upload stops reading it early, so the answer still leaves
        // on the connection (which is then closed).
        body.iterator({ destroyOnReturn: false }),
        declaredContentLength(request),
      );
    } catch (error) {
      // Kept: the global map answers FileTooLargeError (an InvalidInputError) with 422 and
      // UploadCapacityError (no domain error) with 500; the contract says 413 and 429 with
      // Retry-After, and the connection is closed.
      if (error instanceof FileTooLargeError || error instanceof UploadCapacityError) {
        // Answered before the body is read (or read further): the connection is closed after
        // the answer instead of taking the rest of a file nobody will keep.
        void reply.header('connection', 'close');
        if (error instanceof FileTooLargeError) {
          throw new ApiError(413, 'payload_too_large', error.message);
        }
        throw new ApiError(429, 'rate_limited', error.message, {
          'Retry-After': String(error.retryAfterSeconds),
        });
      }
      // A refused file was read whole already; whatever else is left is read and dropped, so
      // the answer reaches the client.
      if (!body.readableEnded) body.resume();
      throw error;
    }
  }

  @Get(':campaign_id/spreadsheet-imports')
  @DashboardAccess('any', { resource: 'campaign', param: 'campaign_id' })
  @ApiOperation({
    summary: 'List the campaign’s last 20 spreadsheet imports',
    description:
      'Each item without the file’s header row, sample rows and suggested mapping: read one import for them.',
    operationId: 'listSpreadsheetImports',
  })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiOkResponse({ type: [SpreadsheetImportSummaryDto], description: 'Newest first' })
  @DashboardErrorResponses(400, 401, 404, 500, 503)
  list(
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
  ): Promise<SpreadsheetImportSummary[]> {
    return this.spreadsheets.list(campaignId);
  }
}

/**
 * `/dashboard/api/spreadsheet-imports/{import_id}` (docs/dashboard.md#spreadsheet-imports): one
 * import with its progress, the preview of its first rows under a mapping, start, cancel, and
 * the rejected rows of all its chunks as CSV. Another account's import is `404`.
 */
@ApiTags('spreadsheet imports')
@DashboardController('spreadsheet-imports')
export class SpreadsheetImportsController {
  constructor(private readonly spreadsheets: SpreadsheetImports) {}

  @Get(':import_id')
  @DashboardAccess('any', { resource: 'spreadsheet-import', param: 'import_id' })
  @ApiOperation({
    summary: 'Read a spreadsheet import and its progress',
    operationId: 'getSpreadsheetImport',
  })
  @ApiSpreadsheetImportIdParam()
  @ApiOkResponse({
    type: SpreadsheetImportDto,
    description:
      'A viewer gets the sample rows’ phones and emails masked (docs/privacy.md#contact-details-by-role)',
  })
  @DashboardErrorResponses(401, 404, 500, 503)
  async get(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('import_id') id: Owned<'spreadsheet-import'>,
  ): Promise<SpreadsheetImportView> {
    const job = await this.spreadsheets.get(id);
    return {
      ...job,
      sample_rows: sampleRowsAsSeenBy(actor.role, job.sample_rows, {
        ...job.suggested_mapping,
        ...job.mapping,
      }),
    };
  }

  /** The sample rows under a mapping, validated as the import will validate them. */
  @Post(':import_id/preview')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'spreadsheet-import', param: 'import_id' })
  @ApiOperation({
    summary: 'Preview the first rows under a column mapping, validated',
    operationId: 'previewSpreadsheetImport',
  })
  @ApiSpreadsheetImportIdParam()
  @ApiCsrfHeader()
  @ApiBody({ type: SpreadsheetPreviewRequestDto })
  @ApiOkResponse({ type: SpreadsheetPreviewDto })
  @DashboardErrorResponses(400, 401, 403, 404, 415, 422, 500, 503)
  async preview(
    @OwnedParam('import_id') id: Owned<'spreadsheet-import'>,
    @Body() body: Record<string, unknown>,
  ): Promise<{ rows: PreviewRow[] }> {
    const { mapping } = checkedInput(SpreadsheetPreviewRequestDto, body);
    return { rows: await this.spreadsheets.preview(id, mapping) };
  }

  /**
   * Starts the import with a mapping and the compliance acknowledgement: `202` with the import
   * now `running` (recorded as `import.start`), or `200` with it as it was when it had started
   * already.
   */
  @Post(':import_id/start')
  @DashboardAccess('admin', { resource: 'spreadsheet-import', param: 'import_id' })
  @ApiOperation({
    summary: 'Start importing the file in the background',
    operationId: 'startSpreadsheetImport',
  })
  @ApiSpreadsheetImportIdParam()
  @ApiCsrfHeader()
  @ApiBody({ type: StartSpreadsheetImportRequestDto })
  @ApiAcceptedResponse({ type: SpreadsheetImportDto, description: 'Started' })
  @ApiOkResponse({ type: SpreadsheetImportDto, description: 'Started already (nothing changed)' })
  @DashboardErrorResponses(400, 401, 403, 404, 409, 415, 422, 500, 503)
  async start(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('import_id') id: Owned<'spreadsheet-import'>,
    @Body() body: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (body.compliance_acknowledged !== true) {
      throw new ApiError(
        400,
        'compliance_not_acknowledged',
        'compliance_acknowledged must be true: confirm you have permission to upload these contacts',
      );
    }
    const input = checkedInput(StartSpreadsheetImportRequestDto, body);
    const { job, started } = await this.spreadsheets.start(
      id,
      { mapping: input.mapping, ...complianceOptions(input, 'spreadsheet'), clientIp: actor.ip },
      actor,
    );
    await reply.status(started ? 202 : 200).send(job);
  }

  /** Cancels the import before its next chunk: recorded as `import.cancel` when it did. */
  @Post(':import_id/cancel')
  @HttpCode(200)
  @DashboardAccess('admin', { resource: 'spreadsheet-import', param: 'import_id' })
  @ApiOperation({ summary: 'Cancel a spreadsheet import', operationId: 'cancelSpreadsheetImport' })
  @ApiSpreadsheetImportIdParam()
  @ApiCsrfHeader()
  @ApiOkResponse({ type: SpreadsheetImportDto, description: 'The import as it stands now' })
  @DashboardErrorResponses(401, 403, 404, 415, 500, 503)
  async cancel(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('import_id') id: Owned<'spreadsheet-import'>,
  ): Promise<SpreadsheetImportView> {
    const { job } = await this.spreadsheets.cancel(id, actor);
    return job;
  }

  /**
   * Discards an upload never started, with its stored file (docs/dashboard.md#abandoned-uploads):
   * `204`, recorded as `import.discard`; `409` once it was started or ended.
   */
  @Delete(':import_id')
  @HttpCode(204)
  @DashboardAccess('admin', { resource: 'spreadsheet-import', param: 'import_id' })
  @ApiOperation({
    summary: 'Discard a spreadsheet upload that was never started',
    operationId: 'discardSpreadsheetImport',
  })
  @ApiSpreadsheetImportIdParam()
  @ApiCsrfHeader()
  @ApiNoContentResponse({ description: 'Discarded: the import and its file are deleted' })
  @DashboardErrorResponses(401, 403, 404, 409, 500, 503)
  async discard(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('import_id') id: Owned<'spreadsheet-import'>,
  ): Promise<void> {
    await this.spreadsheets.discard(id, actor);
  }

  /**
   * Every chunk's rejected rows as one CSV, by file row; the import is looked up first. A viewer
   * gets the submitted phones and emails masked (docs/privacy.md#contact-details-by-role).
   */
  @Get(':import_id/rejections.csv')
  @DashboardAccess('any', { resource: 'spreadsheet-import', param: 'import_id' })
  @ApiOperation({
    summary: 'Download a spreadsheet import’s rejected rows as CSV',
    operationId: 'downloadSpreadsheetRejections',
  })
  @ApiSpreadsheetImportIdParam()
  @ApiCsvDownload(
    'RFC 4180 CSV: row (in the file, the header is row 1), field, message, then each lead field as read; formula-like cells prefixed with a single quote',
  )
  @DashboardErrorResponses(401, 404, 500, 503)
  async csv(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('import_id') id: Owned<'spreadsheet-import'>,
  ): Promise<StreamableFile> {
    const job = await this.spreadsheets.get(id);
    return csvDownload(
      this.spreadsheets.rejectionsCsv(id, (row) => contactsAsSeenBy(actor.role, row)),
      `spreadsheet-import-${job.id}-rejected.csv`,
    );
  }
}
