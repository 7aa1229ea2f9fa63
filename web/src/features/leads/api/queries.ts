import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { ApiError, isApiError } from '../../../lib/api-errors';
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
 * The service's refusal of the search text `text`, in the words of the search box: the API's
 * message names its parameter (`q is not a valid phone number in the campaign's region (US)`),
 * which the person who typed it never saw. Any other error is returned as it is.
 */
export function searchError(error: unknown, text: string): unknown {
  if (!isApiError(error, 422) || !error.message.startsWith('q ')) return error;
  const phone = /^q is not a valid phone number in the campaign's region \(([A-Z]{2})\)/.exec(
    error.message,
  );
  const message = phone
    ? `“${text}” is not a whole phone number of this campaign’s region (${phone[1]}). Enter every digit of the number, in any format; a number of another country starts with + and its country code.`
    : `The search text ${error.message.slice(2)}`;
  return new ApiError(error.status, error.code, message, error.retryAfterSeconds);
}

/**
 * The campaign's leads matching `input` (docs/dashboard.md#leads), keyset-paged; nothing is
 * asked while `input` is null (no search submitted yet). A refusal of the text is said in the
 * search box's words ({@link searchError}).
 */
export function useLeadSearch(campaignId: number, input: LeadSearchInput | null) {
  return useInfiniteQuery({
    queryKey: leadKeys.search(campaignId, input ?? { q: '', field: '' }),
    enabled: input !== null,
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<LeadSearchPage> => {
      const { data } = await api
        .GET('/dashboard/api/campaigns/{campaign_id}/leads', {
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
        })
        .catch((error: unknown) => {
          throw searchError(error, input!.q);
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
