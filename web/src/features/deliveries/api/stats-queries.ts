import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { components } from '../../../api/schema';

/** A window's delivery figures and chart points (docs/delivery-analytics.md). */
export type DeliveryStats = components['schemas']['DeliveryStats'];
export type DeliveryFigures = components['schemas']['DeliveryFigures'];
export type StatsWindow = '1h' | '24h' | '7d' | '30d';

/** What the charts are of: one endpoint, or all of a campaign's. */
export type StatsSubject = { kind: 'endpoint'; id: number } | { kind: 'campaign'; id: number };

export const statsKeys = {
  of: (subject: StatsSubject, window: StatsWindow) =>
    [subject.kind === 'endpoint' ? 'endpoints' : 'campaigns', subject.id, 'stats', window] as const,
};

/** Refreshed every 30 s while shown: the current minute, hour or day keeps filling. */
const REFRESH_MS = 30_000;

export function useDeliveryStats(subject: StatsSubject, window: StatsWindow) {
  return useQuery({
    queryKey: statsKeys.of(subject, window),
    queryFn: async ({ signal }): Promise<DeliveryStats> => {
      const query = { window };
      const call =
        subject.kind === 'endpoint'
          ? api.GET('/dashboard/api/endpoints/{endpoint_id}/stats', {
              params: { path: { endpoint_id: subject.id }, query },
              signal,
            })
          : api.GET('/dashboard/api/campaigns/{campaign_id}/stats', {
              params: { path: { campaign_id: subject.id }, query },
              signal,
            });
      return (await call).data as DeliveryStats;
    },
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
  });
}
