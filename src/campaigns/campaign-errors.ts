import { NotFoundError } from '../common/domain-error';

/**
 * The campaign does not exist (any more). Campaign-scoped HTTP routes answer it with the same
 * 403 as a campaign of another account (docs/api.md#errors); the CLI prints the message.
 */
export class CampaignNotFoundError extends NotFoundError {
  constructor(readonly campaignId: number) {
    super(`campaign ${campaignId} does not exist`);
  }
}
