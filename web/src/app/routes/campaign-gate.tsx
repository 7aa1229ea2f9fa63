import type { ReactNode } from 'react';
import { PageError, PageLoader, type NotFoundText } from '../../components/ui/page-states';
import { useCampaigns } from '../../api/campaigns';
import type { Campaign } from '../../api/types';
import { NotFoundRoute } from './not-found';

/** What the not-found page says for a campaign id the account does not have. */
export const CAMPAIGN_NOT_FOUND: NotFoundText = {
  title: 'Campaign not found',
  description:
    'Your account has no campaign at this address. It may belong to another account, or the link is mistyped.',
};

/**
 * Renders `children` with campaign `campaignId` once the account's campaigns show it is one of
 * them; else the one not-found page, without any of the campaign's sections or actions (the
 * service answers `404` alike for another account's campaign and for none, so neither is asked).
 */
export function CampaignGate({
  campaignId,
  children,
}: {
  campaignId: number;
  children: (campaign: Campaign) => ReactNode;
}) {
  const campaigns = useCampaigns();
  if (campaigns.isPending) return <PageLoader label="Loading the campaign…" />;
  if (campaigns.isError) {
    return <PageError error={campaigns.error} onRetry={() => void campaigns.refetch()} />;
  }
  const campaign = campaigns.data.find((c) => c.id === campaignId);
  if (!campaign) return <NotFoundRoute text={CAMPAIGN_NOT_FOUND} />;
  return children(campaign);
}
