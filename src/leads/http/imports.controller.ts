import { Get, Query, StreamableFile, UseInterceptors } from '@nestjs/common';
import { contactsAsSeenBy, ViewerContactMask } from '../../privacy/http';
import {
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  type ApiQueryOptions,
} from '@nestjs/swagger';
import { parsePageLimit } from '../../common/page-limit';
import {
  IMPORTS_PAGE_DEFAULT,
  IMPORTS_PAGE_LIMITS,
  IMPORTS_PAGE_MAX,
  LeadImports,
  REJECTIONS_PAGE_DEFAULT,
  REJECTIONS_PAGE_LIMITS,
  REJECTIONS_PAGE_MAX,
  type LeadImportView,
  type Page,
} from '../history';
import type { ImportRejection } from '../history';
import {
  ApiCsvDownload,
  csvDownload,
  CurrentActor,
  DashboardAccess,
  DashboardController,
  type DashboardActor,
  ApiIdParam,
  ApiQueries,
  DashboardErrorResponses,
  checkedInput,
  PageQueryDto,
  OwnedParam,
} from '../../dashboard-kernel';
import { ImportRejectionPageDto, LeadImportDto, LeadImportPageDto } from './lead-import.dto';

import type { Owned } from '../../common/owned-id';

const pageQuery = (fallback: number, max: number): ApiQueryOptions[] => [
  {
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: max, default: fallback },
  },
  {
    name: 'cursor',
    required: false,
    schema: { type: 'string' },
    description: 'The `next_cursor` of the previous page, unchanged',
  },
];

const ApiImportIdParam = () =>
  ApiParam({
    name: 'import_id',
    description: 'The upload’s `import_id`',
    schema: { type: 'string', format: 'uuid' },
  });

/**
 * `GET /dashboard/api/campaigns/{campaign_id}/imports` (docs/dashboard.md#imports): a
 * campaign's import history, newest first. Another account's campaign is `404`.
 */
@ApiTags('imports')
@DashboardController('campaigns')
export class CampaignImportsController {
  constructor(private readonly imports: LeadImports) {}

  @Get(':campaign_id/imports')
  @DashboardAccess('any', { resource: 'campaign', param: 'campaign_id' })
  @ApiOperation({ summary: 'List a campaign’s imports', operationId: 'listImports' })
  @ApiIdParam('campaign_id', 'Campaign id')
  @ApiQueries(pageQuery(IMPORTS_PAGE_DEFAULT, IMPORTS_PAGE_MAX))
  @ApiOkResponse({ type: LeadImportPageDto })
  @DashboardErrorResponses(400, 401, 404, 422, 500, 503)
  list(
    @OwnedParam('campaign_id') campaignId: Owned<'campaign'>,
    @Query() query: Record<string, unknown>,
  ): Promise<Page<LeadImportView>> {
    const { limit, cursor } = checkedInput(PageQueryDto, query);
    const size = parsePageLimit(limit, IMPORTS_PAGE_LIMITS);
    return this.imports.list(campaignId, size, cursor);
  }
}

/**
 * `/dashboard/api/imports/{import_id}` (docs/dashboard.md#imports): one import's compliance
 * record and counts, its rejected rows, and those rows as a CSV file safe to open in a
 * spreadsheet. Another account's import is `404`, as is an id that is not a UUID.
 */
@ApiTags('imports')
@DashboardController('imports')
export class ImportsController {
  constructor(private readonly imports: LeadImports) {}

  @Get(':import_id')
  @DashboardAccess('any', { resource: 'import', param: 'import_id' })
  @ApiOperation({ summary: 'Read an import', operationId: 'getImport' })
  @ApiImportIdParam()
  @ApiOkResponse({ type: LeadImportDto })
  @DashboardErrorResponses(401, 404, 500, 503)
  get(@OwnedParam('import_id') id: Owned<'import'>): Promise<LeadImportView> {
    return this.imports.find(id);
  }

  @Get(':import_id/rejections')
  @UseInterceptors(ViewerContactMask)
  @DashboardAccess('any', { resource: 'import', param: 'import_id' })
  @ApiOperation({ summary: 'List an import’s rejected rows', operationId: 'listImportRejections' })
  @ApiImportIdParam()
  @ApiQueries(pageQuery(REJECTIONS_PAGE_DEFAULT, REJECTIONS_PAGE_MAX))
  @ApiOkResponse({ type: ImportRejectionPageDto })
  @DashboardErrorResponses(401, 404, 422, 500, 503)
  rejections(
    @OwnedParam('import_id') id: Owned<'import'>,
    @Query() query: Record<string, unknown>,
  ): Promise<Page<ImportRejection>> {
    const { limit, cursor } = checkedInput(PageQueryDto, query);
    const size = parsePageLimit(limit, REJECTIONS_PAGE_LIMITS);
    return this.imports.rejections(id, size, cursor);
  }

  /**
   * The rejected rows as CSV, written as they are read. The import is looked up first, so an
   * unknown one is a `404` envelope, never a half-written file. A viewer gets the submitted
   * phones and emails masked (docs/privacy.md#contact-details-by-role).
   */
  @Get(':import_id/rejections.csv')
  @DashboardAccess('any', { resource: 'import', param: 'import_id' })
  @ApiOperation({
    summary: 'Download an import’s rejected rows as CSV',
    operationId: 'downloadImportRejections',
  })
  @ApiImportIdParam()
  @ApiCsvDownload(
    'RFC 4180 CSV: row, field, message, then each lead field as submitted; cells that a spreadsheet would read as a formula are prefixed with a single quote',
  )
  @DashboardErrorResponses(401, 404, 500, 503)
  async csv(
    @CurrentActor() actor: DashboardActor,
    @OwnedParam('import_id') id: Owned<'import'>,
  ): Promise<StreamableFile> {
    const found = await this.imports.find(id);
    return csvDownload(
      this.imports.rejectionsCsv(id, (row) => contactsAsSeenBy(actor.role, row)),
      `import-${found.id}-rejected.csv`,
    );
  }
}
