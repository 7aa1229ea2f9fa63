import { useQuery } from '@tanstack/react-query';
import { body, api } from '../lib/api-client';
import type { Campaign, Endpoint, EventType } from './types';

/**
 * The campaign and webhook endpoint reads several features share (the campaign list, one
 * endpoint, the event types), and their query keys. A feature's own reads and changes live in
 * its `api/` folder; keys it invalidates start with these.
 */
export const campaignKeys = {
  all: ['campaigns'] as const,
  endpoints: (campaignId: number) => ['campaigns', campaignId, 'endpoints'] as const,
  endpoint: (endpointId: number) => ['endpoints', endpointId] as const,
  eventTypes: ['event-types'] as const,
};

export function useCampaigns() {
  return useQuery({
    queryKey: campaignKeys.all,
    queryFn: ({ signal }): Promise<Campaign[]> =>
      body(api.GET('/dashboard/api/campaigns', { signal })),
  });
}

export function useEndpoint(endpointId: number) {
  return useQuery({
    queryKey: campaignKeys.endpoint(endpointId),
    queryFn: ({ signal }): Promise<Endpoint> =>
      body(
        api.GET('/dashboard/api/endpoints/{endpoint_id}', {
          params: { path: { endpoint_id: endpointId } },
          signal,
        }),
      ),
  });
}

export function useEventTypes() {
  return useQuery({
    queryKey: campaignKeys.eventTypes,
    queryFn: ({ signal }): Promise<EventType[]> =>
      body(api.GET('/dashboard/api/event-types', { signal })),
    staleTime: Infinity,
  });
}
