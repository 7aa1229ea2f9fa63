import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../../api/schema';
import { api, body } from '../../../lib/api-client';

type Schemas = components['schemas'];
/** An erasure receipt as the dashboard shows it: counts and scope, never the person. */
export type ErasureReceipt = Schemas['DashboardErasureReceipt'];
/** What one erasure removed, per kind of record. */
export type ErasureCounts = Schemas['ErasureCounts'];
export type ErasureInput = Schemas['DashboardErasureRequest'];
/** One person by phone and/or email, for the suppression list. */
export type PersonInput = Schemas['DashboardPersonRequest'];
/** What a suppression CSV did. */
export type SuppressionImport = Schemas['SuppressionImport'];

export const privacyKeys = {
  erasures: ['privacy', 'erasures'] as const,
  suppressions: ['privacy', 'suppressions'] as const,
  campaigns: ['privacy', 'campaign-options'] as const,
};

/** How many receipts the page lists (the latest). */
export const RECEIPTS_SHOWN = 50;

/** The account's latest erasure receipts, newest first. */
export function useErasureReceipts() {
  return useQuery({
    queryKey: privacyKeys.erasures,
    queryFn: ({ signal }): Promise<ErasureReceipt[]> =>
      body(
        api.GET('/dashboard/api/privacy/erasures', {
          params: { query: { limit: RECEIPTS_SHOWN } },
          signal,
        }),
      ),
  });
}

/** The account's campaigns, to limit an erasure to one of them. */
export function useCampaignOptions() {
  return useQuery({
    queryKey: privacyKeys.campaigns,
    queryFn: ({ signal }) => body(api.GET('/dashboard/api/campaigns', { signal })),
  });
}

/** The suppression list's size. */
export function useSuppressionCount() {
  return useQuery({
    queryKey: privacyKeys.suppressions,
    queryFn: ({ signal }): Promise<{ entries: number }> =>
      body(api.GET('/dashboard/api/privacy/suppressions', { signal })),
  });
}

/** Erases a person; the receipts and the list's size are read again after. */
export function useErase() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ErasureInput): Promise<ErasureReceipt> =>
      body(api.POST('/dashboard/api/privacy/erasures', { body: input })),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: privacyKeys.erasures }),
        queryClient.invalidateQueries({ queryKey: privacyKeys.suppressions }),
      ]),
  });
}

export function useAddSuppression() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: PersonInput): Promise<{ added: number }> =>
      body(api.POST('/dashboard/api/privacy/suppressions', { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: privacyKeys.suppressions }),
  });
}

export function useRemoveSuppression() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: PersonInput): Promise<{ removed: number }> =>
      body(api.POST('/dashboard/api/privacy/suppressions/remove', { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: privacyKeys.suppressions }),
  });
}

/** Sends a CSV file as the raw body (`application/octet-stream`), as the service reads it. */
export function useImportSuppressions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: Blob): Promise<SuppressionImport> =>
      body(
        api.POST('/dashboard/api/privacy/suppressions/import', {
          // The file's bytes, unchanged: the service reads at most its bound of them.
          body: file as unknown as string,
          bodySerializer: (raw: unknown) => raw as Blob,
          headers: { 'Content-Type': 'application/octet-stream' },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: privacyKeys.suppressions }),
  });
}

/** A phone and email as typed: trimmed, and left out when empty. */
export function personInput(phone: string, email: string): PersonInput {
  const input: PersonInput = {};
  if (phone.trim() !== '') input.phone = phone.trim();
  if (email.trim() !== '') input.email = email.trim();
  return input;
}
