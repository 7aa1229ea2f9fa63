import type { AuthPrincipal } from '../../auth/auth-principal';
import { CampaignNotFoundError } from '../../campaigns/campaign-errors';
import type { CampaignScope } from '../../campaigns/campaigns.service';
import { ApiError } from '../../common/api-error';
import { NotFoundError } from '../../common/domain-error';
import type { IdempotentRequest } from '../../idempotency/idempotency.interceptor';
import type { LeadUploadRequest } from './lead-upload-request.dto';
import type { LeadImportService } from '../upload/lead-import.service';
import { LeadsController } from './lead-upload.controller';

const request: LeadUploadRequest = {
  campaign_id: 42,
  leads: [{ phone: '+14155552671' }],
  source: 'api',
  tags: [],
  skip_duplicates: true,
  disclaimer_version: 'v1.0',
};
const campaign: CampaignScope = { id: 42, accountId: 1, defaultRegion: 'US' };
const principal: AuthPrincipal = {
  apiKeyId: 7,
  accountId: 1,
  campaignIds: null,
  keyPrefix: 'ck_live_test',
};
const http = { ip: '203.0.113.9', idempotencyKey: 'k' } as IdempotentRequest;

function controllerFailingWith(error: unknown): LeadsController {
  const imports = { importLeads: jest.fn().mockRejectedValue(error) };
  return new LeadsController(imports as unknown as LeadImportService);
}

describe('LeadsController.upload (docs/api.md#errors)', () => {
  it('passes the upload, client IP and claimed key to the service', async () => {
    const response = { status: 'accepted' };
    const importLeads = jest.fn().mockResolvedValue(response);
    const controller = new LeadsController({ importLeads } as unknown as LeadImportService);
    await expect(controller.upload(request, campaign, principal, http)).resolves.toBe(response);
    expect(importLeads).toHaveBeenCalledWith(request, campaign, principal, '203.0.113.9', 'k');
  });

  it('answers a campaign deleted meanwhile with the 403 of any unknown campaign', async () => {
    const failure = controllerFailingWith(new CampaignNotFoundError(42)).upload(
      request,
      campaign,
      principal,
      http,
    );
    await expect(failure).rejects.toEqual(ApiError.forbidden());
    await expect(failure).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
      message: 'This token may not use that campaign',
    });
  });

  it('lets every other error through unchanged', async () => {
    const other = new NotFoundError('something else');
    await expect(
      controllerFailingWith(other).upload(request, campaign, principal, http),
    ).rejects.toBe(other);
  });
});
