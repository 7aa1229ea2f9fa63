import { useQuery } from '@tanstack/react-query';
import { campaignKeys } from '../../../api/campaigns';
import type { Endpoint } from '../../../api/types';
import { body, api } from '../../../lib/api-client';

export function useCampaignEndpoints(campaignId: number) {
  return useQuery({
    queryKey: campaignKeys.endpoints(campaignId),
    queryFn: ({ signal }): Promise<Endpoint[]> =>
      body(
        api.GET('/dashboard/api/campaigns/{campaign_id}/endpoints', {
          params: { path: { campaign_id: campaignId } },
          signal,
        }),
      ),
  });
}
