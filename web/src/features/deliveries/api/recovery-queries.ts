import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { components } from '../../../api/schema';

/**
 * Bulk recovery's shapes (docs/dashboard.md#bulk-recovery), replays of missed deliveries
 * included (docs/dashboard.md#replaying-missed-deliveries), from the OpenAPI document.
 */
export type Recovery = components['schemas']['Recovery'];
export type RecoveryPreview = components['schemas']['RecoveryPreview'];
/** What a recovery is started with: `since`, and `scope` (`failed` when absent, or `missed`). */
export type StartRecoveryInput = components['schemas']['StartRecoveryRequest'];

export const recoveryKeys = {
  list: (endpointId: number) => ['endpoints', endpointId, 'recoveries'] as const,
  preview: (endpointId: number, since: string) =>
    ['endpoints', endpointId, 'recovery-preview', since] as const,
};

/** How often the recoveries are read again while one is running, in ms. */
export const RECOVERY_POLL_MS = 1_000;

/** The endpoint's last 10 recoveries, newest first; polled while the newest is running. */
export function useRecoveries(endpointId: number) {
  return useQuery({
    queryKey: recoveryKeys.list(endpointId),
    queryFn: async ({ signal }): Promise<Recovery[]> =>
      (
        await api.GET('/dashboard/api/endpoints/{endpoint_id}/recoveries', {
          params: { path: { endpoint_id: endpointId } },
          signal,
        })
      ).data as Recovery[],
    refetchInterval: (query) =>
      query.state.data?.[0]?.status === 'running' ? RECOVERY_POLL_MS : false,
  });
}

/**
 * How many failed, and skipped or dropped, deliveries a recovery since `since` (ISO 8601) would
 * send again; off while null.
 */
export function useRecoveryPreview(endpointId: number, since: string | null) {
  return useQuery({
    queryKey: recoveryKeys.preview(endpointId, since ?? ''),
    queryFn: async ({ signal }): Promise<RecoveryPreview> =>
      (
        await api.GET('/dashboard/api/endpoints/{endpoint_id}/recovery/preview', {
          params: { path: { endpoint_id: endpointId }, query: { since: since! } },
          signal,
        })
      ).data as RecoveryPreview,
    enabled: since !== null,
    staleTime: 0,
  });
}

/** A change to the endpoint's recoveries; the list is read again (and polled while running) after it. */
function useRecoveryChange<T>(
  endpointId: number,
  change: (input: T) => Promise<{ data?: Recovery }>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: T): Promise<Recovery> => (await change(input)).data as Recovery,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: recoveryKeys.list(endpointId) }),
  });
}

/** Starts a recovery (a replay with the scope `missed`), or answers the one already running. */
export function useStartRecovery(endpointId: number) {
  return useRecoveryChange(endpointId, (body: StartRecoveryInput) =>
    api.POST('/dashboard/api/endpoints/{endpoint_id}/recoveries', {
      params: { path: { endpoint_id: endpointId } },
      body,
    }),
  );
}

/** Cancels a recovery before its next batch. */
export function useCancelRecovery(endpointId: number) {
  return useRecoveryChange(endpointId, (recoveryId: number) =>
    api.POST('/dashboard/api/recoveries/{recovery_id}/cancel', {
      params: { path: { recovery_id: recoveryId } },
    }),
  );
}
