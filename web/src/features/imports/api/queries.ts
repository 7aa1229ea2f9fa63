import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { components } from '../../../api/schema';
import { api } from '../../../lib/api-client';

type Schemas = components['schemas'];
/** One import and its compliance record (docs/dashboard.md#imports). */
export type LeadImport = Schemas['LeadImport'];
export type LeadImportPage = Schemas['LeadImportPage'];
/** One rejected row: its place in the upload, the error, and the lead's fields as sent. */
export type ImportRejection = Schemas['ImportRejection'];
export type ImportRejectionPage = Schemas['ImportRejectionPage'];

export const importKeys = {
  ofCampaign: (campaignId: number) => ['campaigns', campaignId, 'imports'] as const,
  one: (importId: string) => ['imports', importId] as const,
  rejections: (importId: string) => ['imports', importId, 'rejections'] as const,
};

/** Where the browser downloads an import's rejected rows as CSV (same-origin, with the cookie). */
export function rejectionsCsvUrl(importId: string): string {
  return `/dashboard/api/imports/${encodeURIComponent(importId)}/rejections.csv`;
}

/** A campaign's imports, newest first, 20 a page. */
export function useCampaignImports(campaignId: number) {
  return useInfiniteQuery({
    queryKey: importKeys.ofCampaign(campaignId),
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<LeadImportPage> =>
      (
        await api.GET('/dashboard/api/campaigns/{campaign_id}/imports', {
          params: {
            path: { campaign_id: campaignId },
            query: { limit: 20, ...(pageParam ? { cursor: pageParam } : {}) },
          },
          signal,
        })
      ).data as LeadImportPage,
    getNextPageParam: (page) => page.next_cursor,
  });
}

export function useImport(importId: string) {
  return useQuery({
    queryKey: importKeys.one(importId),
    queryFn: async ({ signal }): Promise<LeadImport> =>
      (
        await api.GET('/dashboard/api/imports/{import_id}', {
          params: { path: { import_id: importId } },
          signal,
        })
      ).data as LeadImport,
  });
}

/** An import's rejected rows by row, 100 a page. */
export function useImportRejections(importId: string) {
  return useInfiniteQuery({
    queryKey: importKeys.rejections(importId),
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<ImportRejectionPage> =>
      (
        await api.GET('/dashboard/api/imports/{import_id}/rejections', {
          params: {
            path: { import_id: importId },
            query: { limit: 100, ...(pageParam ? { cursor: pageParam } : {}) },
          },
          signal,
        })
      ).data as ImportRejectionPage,
    getNextPageParam: (page) => page.next_cursor,
  });
}
