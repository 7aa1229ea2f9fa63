import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { logQueryParams, type LogFilters } from '../lib/log-filters';
import type {
  AttemptDetail,
  AttemptPage,
  AttemptResult,
  Campaign,
  DeliveryLedger,
  CreatedEndpoint,
  Endpoint,
  EndpointInput,
  EventType,
  RotatedSecret,
  TestEventInput,
} from './types';

/** The body of a successful call (the client throws an ApiError for any other answer). */
async function body<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}

export const campaignKeys = {
  all: ['campaigns'] as const,
  endpoints: (campaignId: number) => ['campaigns', campaignId, 'endpoints'] as const,
  endpoint: (endpointId: number) => ['endpoints', endpointId] as const,
  attempts: (endpointId: number, filters: LogFilters) =>
    ['endpoints', endpointId, 'attempts', filters] as const,
  attempt: (attemptId: number) => ['attempts', attemptId] as const,
  // Under the endpoint's key: a change to the endpoint, a test event or a redelivery refetches it.
  ledger: (endpointId: number, days: number) => ['endpoints', endpointId, 'ledger', days] as const,
  eventTypes: ['event-types'] as const,
};

export function useCampaigns() {
  return useQuery({
    queryKey: campaignKeys.all,
    queryFn: ({ signal }): Promise<Campaign[]> =>
      body(api.GET('/dashboard/api/campaigns', { signal })),
  });
}

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

/** Everything cached about endpoints and their health is refetched after a change. */
function invalidateEndpoints(queryClient: QueryClient) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: ['campaigns'] }),
    queryClient.invalidateQueries({ queryKey: ['endpoints'] }),
  ]);
}

export function useCreateEndpoint(campaignId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: EndpointInput): Promise<CreatedEndpoint> =>
      body(
        api.POST('/dashboard/api/campaigns/{campaign_id}/endpoints', {
          params: { path: { campaign_id: campaignId } },
          body: input,
        }),
      ),
    onSuccess: () => invalidateEndpoints(queryClient),
  });
}

export function useUpdateEndpoint(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: Partial<EndpointInput>): Promise<Endpoint> =>
      body(
        api.PATCH('/dashboard/api/endpoints/{endpoint_id}', {
          params: { path: { endpoint_id: endpointId } },
          body: input,
        }),
      ),
    onSuccess: () => invalidateEndpoints(queryClient),
  });
}

export function useDeleteEndpoint(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      body(
        api.DELETE('/dashboard/api/endpoints/{endpoint_id}', {
          params: { path: { endpoint_id: endpointId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['campaigns'] }),
  });
}

export function useRevealSecret(endpointId: number) {
  return useMutation({
    mutationFn: () =>
      body(
        api.POST('/dashboard/api/endpoints/{endpoint_id}/secret/reveal', {
          params: { path: { endpoint_id: endpointId } },
        }),
      ),
  });
}

export function useRotateSecret(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (): Promise<RotatedSecret> =>
      body(
        api.POST('/dashboard/api/endpoints/{endpoint_id}/secret/rotate', {
          params: { path: { endpoint_id: endpointId } },
        }),
      ),
    onSuccess: () => invalidateEndpoints(queryClient),
  });
}

export function useSendTest(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (eventType: string | null): Promise<AttemptResult> =>
      body(
        api.POST('/dashboard/api/endpoints/{endpoint_id}/test', {
          params: { path: { endpoint_id: endpointId } },
          body: (eventType ? { event_type: eventType } : {}) as TestEventInput,
        }),
      ),
    onSuccess: () => invalidateEndpoints(queryClient),
  });
}

export function useRedeliver(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: number): Promise<AttemptResult> =>
      body(
        api.POST('/dashboard/api/deliveries/{delivery_id}/redeliver', {
          params: { path: { delivery_id: deliveryId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: campaignKeys.endpoint(endpointId) }),
  });
}

/** The delivery log, newest first, one page of `next_cursor` at a time. */
export function useDeliveryLog(endpointId: number, filters: LogFilters) {
  return useInfiniteQuery({
    queryKey: campaignKeys.attempts(endpointId, filters),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }): Promise<AttemptPage> =>
      body(
        api.GET('/dashboard/api/endpoints/{endpoint_id}/attempts', {
          params: { path: { endpoint_id: endpointId }, query: logQueryParams(filters, pageParam) },
          signal,
        }),
      ),
    getNextPageParam: (page) => page.next_cursor,
  });
}

/** The delivery ledger of the last `days` UTC days (1–90), today first. */
export function useDeliveryLedger(endpointId: number, days: number) {
  return useQuery({
    queryKey: campaignKeys.ledger(endpointId, days),
    queryFn: ({ signal }): Promise<DeliveryLedger> =>
      body(
        api.GET('/dashboard/api/endpoints/{endpoint_id}/ledger', {
          params: { path: { endpoint_id: endpointId }, query: { days } },
          signal,
        }),
      ),
  });
}

export function useAttempt(attemptId: number | null) {
  return useQuery({
    queryKey: campaignKeys.attempt(attemptId ?? 0),
    queryFn: ({ signal }): Promise<AttemptDetail> =>
      body(
        api.GET('/dashboard/api/attempts/{attempt_id}', {
          params: { path: { attempt_id: attemptId ?? 0 } },
          signal,
        }),
      ),
    enabled: attemptId !== null,
  });
}
