import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { campaignKeys } from '../../../api/campaigns';
import type { AttemptDetail, AttemptPage, AttemptResult, DeliveryLedger } from '../../../api/types';
import { body, api } from '../../../lib/api-client';
import { logQueryParams, type LogFilters } from '../lib/log-filters';

/** The prefix of every attempt's detail query. */
const ATTEMPTS_KEY = ['attempts'] as const;

/** Delivery queries: under the endpoint's key, so a change to the endpoint refetches them. */
export const deliveryKeys = {
  attempts: (endpointId: number, filters: LogFilters) =>
    ['endpoints', endpointId, 'attempts', filters] as const,
  attempt: (attemptId: number) => [...ATTEMPTS_KEY, attemptId] as const,
  // Under the endpoint's key: a change to the endpoint, a test event or a redelivery refetches it.
  ledger: (endpointId: number, days: number) => ['endpoints', endpointId, 'ledger', days] as const,
};

/**
 * Redelivers a delivery once; then refetches the endpoint's reads (log, ledger) and every
 * attempt's detail, whose delivery state ("2 attempts so far") the redelivery changed.
 */
export function useRedeliver(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: number): Promise<AttemptResult> =>
      body(
        api.POST('/dashboard/api/deliveries/{delivery_id}/redeliver', {
          params: { path: { delivery_id: deliveryId } },
        }),
      ),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: campaignKeys.endpoint(endpointId) }),
        queryClient.invalidateQueries({ queryKey: ATTEMPTS_KEY }),
      ]),
  });
}

/** The delivery log, newest first, one page of `next_cursor` at a time. */
export function useDeliveryLog(endpointId: number, filters: LogFilters) {
  return useInfiniteQuery({
    queryKey: deliveryKeys.attempts(endpointId, filters),
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
    queryKey: deliveryKeys.ledger(endpointId, days),
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
    queryKey: deliveryKeys.attempt(attemptId ?? 0),
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
