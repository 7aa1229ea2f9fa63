import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { components } from '../../../api/schema';
import type { AttemptPage } from '../../../api/types';
import { body, api } from '../../../lib/api-client';

type Schemas = components['schemas'];

/**
 * An endpoint's transformation (docs/webhooks.md#transformations): the version in force (null
 * when requests are sent as the events are) and its latest 100 versions, newest first.
 */
export type TransformationState = Schemas['TransformationState'];
export type TransformationVersion = Schemas['TransformationVersion'];
export type TransformationVersionSummary = Schemas['TransformationVersionSummary'];
/** What "Run on…" answers: the request that would be sent, a cancel, or the error. */
export type TransformationTrial = Schemas['TransformationTrial'];
export type RunTransformationInput = Schemas['RunTransformationRequest'];
/** An event type the example runs can use. */
export type TrialEventType = NonNullable<RunTransformationInput['event_type']>;
export type Recovery = Schemas['Recovery'];

/** Under the endpoint's key, so a change to the endpoint refetches them too. */
export const transformationKeys = {
  state: (endpointId: number) => ['endpoints', endpointId, 'transformation'] as const,
  version: (endpointId: number, version: number) =>
    ['endpoints', endpointId, 'transformation', 'version', version] as const,
  deliveries: (endpointId: number) =>
    ['endpoints', endpointId, 'transformation-deliveries'] as const,
  failures: (endpointId: number) => ['endpoints', endpointId, 'transformation-failures'] as const,
};

/** The attempt error of a delivery that failed on its transformation starts so. */
export const TRANSFORMATION_ERROR_PREFIX = 'transformation_error:';

/** The endpoint's transformation in force and its versions (any role). */
export function useTransformation(endpointId: number) {
  return useQuery({
    queryKey: transformationKeys.state(endpointId),
    queryFn: ({ signal }): Promise<TransformationState> =>
      body(
        api.GET('/dashboard/api/endpoints/{endpoint_id}/transformation', {
          params: { path: { endpoint_id: endpointId } },
          signal,
        }),
      ),
  });
}

/** One saved version with its code; off while `version` is null. Versions never change. */
export function useTransformationVersion(endpointId: number, version: number | null) {
  return useQuery({
    queryKey: transformationKeys.version(endpointId, version ?? 0),
    queryFn: ({ signal }): Promise<TransformationVersion> =>
      body(
        api.GET('/dashboard/api/endpoints/{endpoint_id}/transformation/code', {
          params: { path: { endpoint_id: endpointId }, query: { version: version ?? 0 } },
          signal,
        }),
      ),
    enabled: version !== null,
    staleTime: Infinity,
  });
}

/** A change answers the new state: it is cached at once, and the endpoint's reads refetched. */
function useStateChange<T>(
  endpointId: number,
  change: (input: T) => Promise<{ data?: TransformationState }>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: T): Promise<TransformationState> =>
      (await change(input)).data as TransformationState,
    onSuccess: (state) => settle(queryClient, endpointId, state),
  });
}

function settle(queryClient: QueryClient, endpointId: number, state: TransformationState) {
  queryClient.setQueryData(transformationKeys.state(endpointId), state);
  return queryClient.invalidateQueries({
    queryKey: transformationKeys.failures(endpointId),
  });
}

/** Saves `code` as the next version, in force at once (admin); a 422 names line and column. */
export function useSaveTransformation(endpointId: number) {
  return useStateChange(endpointId, (code: string) =>
    api.PUT('/dashboard/api/endpoints/{endpoint_id}/transformation', {
      params: { path: { endpoint_id: endpointId } },
      body: { code },
    }),
  );
}

/** Restores a saved version: its code becomes a new version (admin). */
export function useRestoreTransformation(endpointId: number) {
  return useStateChange(endpointId, (version: number) =>
    api.POST('/dashboard/api/endpoints/{endpoint_id}/transformation/restore', {
      params: { path: { endpoint_id: endpointId } },
      body: { version },
    }),
  );
}

/** Takes the transformation out of force; its versions are kept (admin). */
export function useClearTransformation(endpointId: number) {
  return useStateChange(endpointId, () =>
    api.DELETE('/dashboard/api/endpoints/{endpoint_id}/transformation', {
      params: { path: { endpoint_id: endpointId } },
    }),
  );
}

/** Runs code (or the version in force) on an example or a past delivery; nothing is sent (admin). */
export function useRunTransformation(endpointId: number) {
  return useMutation({
    mutationFn: (input: RunTransformationInput): Promise<TransformationTrial> =>
      body(
        api.POST('/dashboard/api/endpoints/{endpoint_id}/transformation/run', {
          params: { path: { endpoint_id: endpointId } },
          body: input,
        }),
      ),
  });
}

/** The endpoint's 50 latest delivery attempts that belong to a delivery (not test events). */
export function useRecentDeliveries(endpointId: number) {
  return useQuery({
    queryKey: transformationKeys.deliveries(endpointId),
    queryFn: async ({ signal }): Promise<AttemptPage['items']> => {
      const page = await body(
        api.GET('/dashboard/api/endpoints/{endpoint_id}/attempts', {
          params: { path: { endpoint_id: endpointId }, query: { limit: 50 } },
          signal,
        }),
      );
      const seen = new Set<number>();
      return page.items.filter((attempt) => {
        if (attempt.delivery_id === null || seen.has(attempt.delivery_id)) return false;
        seen.add(attempt.delivery_id);
        return true;
      });
    },
  });
}

/**
 * How many of the endpoint's 100 latest failed attempts failed on the transformation (their
 * error starts `transformation_error:`): such deliveries are not retried on the schedule.
 */
export function useTransformationFailures(endpointId: number, enabled: boolean) {
  return useQuery({
    queryKey: transformationKeys.failures(endpointId),
    queryFn: async ({ signal }): Promise<number> => {
      const page = await body(
        api.GET('/dashboard/api/endpoints/{endpoint_id}/attempts', {
          params: { path: { endpoint_id: endpointId }, query: { limit: 100, outcome: 'failed' } },
          signal,
        }),
      );
      const deliveries = new Set(
        page.items
          .filter((a) => a.delivery_id !== null && a.error?.startsWith(TRANSFORMATION_ERROR_PREFIX))
          .map((a) => a.delivery_id),
      );
      return deliveries.size;
    },
    enabled,
  });
}

/**
 * Sends again the deliveries that failed on the transformation since `since` (ISO 8601): a
 * recovery of scope `transformation_errors` (admin). The endpoint's recoveries are refetched.
 */
export function useRetryTransformationErrors(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (since: string): Promise<Recovery> =>
      body(
        api.POST('/dashboard/api/endpoints/{endpoint_id}/recoveries', {
          params: { path: { endpoint_id: endpointId } },
          body: { since, scope: 'transformation_errors' },
        }),
      ),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: ['endpoints', endpointId, 'recoveries'] }),
  });
}
