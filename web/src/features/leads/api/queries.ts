import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type {
  LeadDeliveryPage,
  LeadDetail,
  LeadSearchField,
  LeadSearchPage,
} from '../../../api/types';

/** A submitted lead search: the text and, when chosen, what it is. */
export interface LeadSearchInput {
  q: string;
  field: LeadSearchField;
}

export const leadKeys = {
  search: (campaignId: number, input: LeadSearchInput) =>
    ['campaigns', campaignId, 'leads', input] as const,
  lead: (leadId: number) => ['leads', leadId] as const,
  deliveries: (leadId: number) => ['leads', leadId, 'deliveries'] as const,
};

/** Rows per search page. */
const SEARCH_PAGE = 25;

/**
 * The campaign's leads matching `input` (docs/dashboard.md#leads), keyset-paged; nothing is
 * asked while `input` is null (no search submitted yet).
 */
export function useLeadSearch(campaignId: number, input: LeadSearchInput | null) {
  return useInfiniteQuery({
    queryKey: leadKeys.search(campaignId, input ?? { q: '', field: '' }),
    enabled: input !== null,
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<LeadSearchPage> => {
      const { data } = await api.GET('/dashboard/api/campaigns/{campaign_id}/leads', {
        params: {
          path: { campaign_id: campaignId },
          query: {
            q: input!.q,
            limit: SEARCH_PAGE,
            ...(input!.field ? { field: input!.field } : {}),
            ...(pageParam ? { cursor: pageParam } : {}),
          },
        },
        signal,
      });
      return data as LeadSearchPage;
    },
    getNextPageParam: (page) => page.next_cursor,
  });
}

/** One lead with its import. */
export function useLead(leadId: number) {
  return useQuery({
    queryKey: leadKeys.lead(leadId),
    queryFn: async ({ signal }): Promise<LeadDetail> =>
      (
        await api.GET('/dashboard/api/leads/{lead_id}', {
          params: { path: { lead_id: leadId } },
          signal,
        })
      ).data as LeadDetail,
  });
}

/** The lead's webhook deliveries, newest first, each with its attempts; keyset-paged. */
export function useLeadDeliveries(leadId: number) {
  return useInfiniteQuery({
    queryKey: leadKeys.deliveries(leadId),
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<LeadDeliveryPage> =>
      (
        await api.GET('/dashboard/api/leads/{lead_id}/deliveries', {
          params: {
            path: { lead_id: leadId },
            query: pageParam ? { cursor: pageParam } : {},
          },
          signal,
        })
      ).data as LeadDeliveryPage,
    getNextPageParam: (page) => page.next_cursor,
  });
}
