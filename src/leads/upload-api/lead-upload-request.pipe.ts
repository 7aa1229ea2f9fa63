import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from '../../common/api-error';
import { complianceOptions } from '..';
import { validateBody } from '../../common/validate-body';
import { LeadUploadRequest, LeadUploadRequestDto } from './lead-upload-request.dto';

/**
 * Checks an upload body in the order of docs/api.md#errors, after the bearer and campaign guards:
 * compliance (400 `compliance_not_acknowledged`) → `leads` present (400 `bad_request`) →
 * envelope shape (422 `validation_failed`, every problem named; unknown top-level fields are
 * found in one pass before class-validator runs, ten named and the rest counted). Returns the
 * request with the spec's defaults (`source` "api", `tags` [], `skip_duplicates` true,
 * `disclaimer_version` "v1.0"; `complianceOptions`, src/leads/lead-compliance.constants.ts) and its
 * strings well-formed (a lone surrogate becomes U+FFFD, as PostgreSQL stores it), so what is
 * stored is what webhooks deliver. HTTP edge code: it
 * answers with `ApiError` directly.
 *
 * @throws ApiError 400 `compliance_not_acknowledged`, 400 `bad_request` or 422
 *   `validation_failed`, in that order of checks.
 */
@Injectable()
export class LeadUploadRequestPipe implements PipeTransform<
  Record<string, unknown>,
  LeadUploadRequest
> {
  transform(body: Record<string, unknown>): LeadUploadRequest {
    if (body.compliance_acknowledged !== true) {
      throw new ApiError(
        400,
        'compliance_not_acknowledged',
        'compliance_acknowledged must be true: confirm you have permission to upload these contacts',
      );
    }
    if (body.leads === undefined || body.leads === null)
      throw ApiError.badRequest('leads is required');
    const { dto, problems } = validateBody(LeadUploadRequestDto, body, true);
    if (problems.length > 0) throw ApiError.validationFailed(problems);
    const compliance = complianceOptions(dto, 'api');
    return {
      campaign_id: dto.campaign_id,
      leads: dto.leads,
      source: compliance.source,
      tags: compliance.tags,
      skip_duplicates: compliance.skipDuplicates,
      disclaimer_version: compliance.disclaimerVersion,
    };
  }
}
