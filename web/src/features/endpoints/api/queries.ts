import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type {
  AttemptResult,
  CreatedEndpoint,
  Endpoint,
  EndpointInput,
  FilterPreview,
  FilterPreviewRequest,
  RevealedHeader,
  RotatedSecret,
  SignatureScheme,
  TestEventInput,
} from '../../../api/types';
import { body, api } from '../../../lib/api-client';

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

/** Reveals a secret custom header's value by name; the service records it in the audit log. */
export function useRevealHeader(endpointId: number) {
  return useMutation({
    mutationFn: (name: string): Promise<RevealedHeader> =>
      body(
        api.POST('/dashboard/api/endpoints/{endpoint_id}/headers/reveal', {
          params: { path: { endpoint_id: endpointId } },
          body: { name },
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

/**
 * Switches the endpoint to the other signature scheme: the answer is the new key (a `whsec_`
 * secret shown once, or the ed25519 public key) and until when the current one keeps signing.
 */
export function useChangeSignatureScheme(endpointId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (scheme: SignatureScheme): Promise<RotatedSecret> =>
      body(
        api.POST('/dashboard/api/endpoints/{endpoint_id}/signature-scheme', {
          params: { path: { endpoint_id: endpointId } },
          body: { signature_scheme: scheme },
        }),
      ),
    onSuccess: () => invalidateEndpoints(queryClient),
  });
}

/**
 * Tries a payload filter on the subscribed types' examples and the campaign's recent events
 * (docs/dashboard.md#payload-filter-preview): nothing is sent or saved; a wrong filter is a 422
 * naming its line and column.
 */
export function usePreviewFilter(campaignId: number) {
  return useMutation({
    mutationFn: (input: { filter: string; events: string[] }): Promise<FilterPreview> =>
      body(
        api.POST('/dashboard/api/campaigns/{campaign_id}/filter-preview', {
          params: { path: { campaign_id: campaignId } },
          body: input as FilterPreviewRequest,
        }),
      ),
  });
}
