import type { components } from '../../../api/schema';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, body } from '../../../lib/api-client';

/** An API key as listed: never the key itself. */
export type ApiKey = components['schemas']['DashboardApiKey'];
/** `POST /api-keys`: the new key, shown once. */
export type CreatedApiKey = components['schemas']['CreatedApiKey'];
export type ApiKeyInput = components['schemas']['CreateApiKeyRequest'];

export const apiKeyKeys = {
  all: ['api-keys'] as const,
  campaigns: ['api-keys', 'campaign-options'] as const,
};

export function useApiKeys() {
  return useQuery({
    queryKey: apiKeyKeys.all,
    queryFn: ({ signal }): Promise<ApiKey[]> =>
      body(api.GET('/dashboard/api/api-keys', { signal })),
  });
}

/** The account's campaigns, to limit a new key to some of them. */
export function useCampaignOptions() {
  return useQuery({
    queryKey: apiKeyKeys.campaigns,
    queryFn: ({ signal }) => body(api.GET('/dashboard/api/campaigns', { signal })),
  });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ApiKeyInput): Promise<CreatedApiKey> =>
      body(api.POST('/dashboard/api/api-keys', { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      body(api.POST('/dashboard/api/api-keys/{id}/revoke', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}
