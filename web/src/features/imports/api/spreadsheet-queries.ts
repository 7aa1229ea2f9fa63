import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import type { components } from '../../../api/schema';
import { api, currentCsrfToken, CSRF_HEADER } from '../../../lib/api-client';
import { ApiError, networkError } from '../../../lib/api-errors';
import { importKeys } from './queries';

type Schemas = components['schemas'];
/** A spreadsheet import and its progress (docs/dashboard.md#spreadsheet-imports). */
export type SpreadsheetImport = Schemas['SpreadsheetImport'];
/** A spreadsheet import as the campaign's list has it: without the file's header and sample rows. */
export type SpreadsheetImportSummary = Schemas['SpreadsheetImportSummary'];
export type SpreadsheetPreviewRow = Schemas['SpreadsheetPreviewRow'];
/** Lead field → 0-based column index. */
export type ColumnMapping = Schemas['SpreadsheetPreviewRequest']['mapping'];
export type StartSpreadsheetImport = Schemas['StartSpreadsheetImportRequest'];

export const spreadsheetKeys = {
  one: (id: string) => ['spreadsheet-imports', id] as const,
  ofCampaign: (campaignId: number) => ['campaigns', campaignId, 'spreadsheet-imports'] as const,
  preview: (id: string, mapping: ColumnMapping) =>
    ['spreadsheet-imports', id, 'preview', mapping] as const,
};

/** How often a running import's progress is read again, in ms. */
export const SPREADSHEET_POLL_MS = 1_000;

/** Where the browser downloads every rejected row of a spreadsheet import as CSV. */
export function spreadsheetRejectionsCsvUrl(id: string): string {
  return `/dashboard/api/spreadsheet-imports/${encodeURIComponent(id)}/rejections.csv`;
}

/**
 * Streams `file` to the service as the request body (the browser reads it from disk as it
 * sends: never whole in memory), reporting the bytes sent. XMLHttpRequest, not fetch: only it
 * reports an upload's progress.
 * @returns the new import, with its headers, sample rows and suggested mapping.
 * @throws ApiError with the service's message (status 0 when it could not be reached).
 */
export function uploadSpreadsheet(
  campaignId: number,
  file: File,
  onProgress: (sent: number, total: number) => void,
  signal?: AbortSignal,
): Promise<SpreadsheetImport> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const url = `/dashboard/api/campaigns/${campaignId}/spreadsheet-imports?file_name=${encodeURIComponent(file.name)}`;
    xhr.open('POST', url);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    const csrf = currentCsrfToken();
    if (csrf !== null) xhr.setRequestHeader(CSRF_HEADER, csrf);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.total || file.size);
    xhr.onload = () => {
      const body = xhr.response as
        (SpreadsheetImport & { error?: string; message?: string }) | null;
      if (xhr.status >= 200 && xhr.status < 300 && body) resolve(body);
      else
        reject(
          new ApiError(
            xhr.status,
            body?.error ?? 'unknown',
            body?.message ?? `The upload failed (HTTP ${xhr.status})`,
          ),
        );
    };
    xhr.onerror = () => reject(networkError());
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}

/** Uploads a file into a campaign; the campaign's list of spreadsheet imports is read again after. */
export function useUploadSpreadsheet(campaignId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      file,
      onProgress,
    }: {
      file: File;
      onProgress: (sent: number, total: number) => void;
    }) => uploadSpreadsheet(campaignId, file, onProgress),
    onSuccess: (job) => {
      queryClient.setQueryData(spreadsheetKeys.one(job.id), job);
      return queryClient.invalidateQueries({ queryKey: spreadsheetKeys.ofCampaign(campaignId) });
    },
  });
}

/** One spreadsheet import; polled while it runs. */
export function useSpreadsheetImport(id: string) {
  return useQuery({
    queryKey: spreadsheetKeys.one(id),
    queryFn: async ({ signal }): Promise<SpreadsheetImport> =>
      (
        await api.GET('/dashboard/api/spreadsheet-imports/{import_id}', {
          params: { path: { import_id: id } },
          signal,
        })
      ).data as SpreadsheetImport,
    refetchInterval: (query) =>
      query.state.data?.status === 'running' ? SPREADSHEET_POLL_MS : false,
  });
}

/** A campaign's last 20 spreadsheet imports, newest first; polled while one runs. */
export function useCampaignSpreadsheetImports(campaignId: number) {
  return useQuery({
    queryKey: spreadsheetKeys.ofCampaign(campaignId),
    queryFn: async ({ signal }): Promise<SpreadsheetImportSummary[]> =>
      (
        await api.GET('/dashboard/api/campaigns/{campaign_id}/spreadsheet-imports', {
          params: { path: { campaign_id: campaignId } },
          signal,
        })
      ).data as SpreadsheetImportSummary[],
    refetchInterval: (query) =>
      query.state.data?.some((job) => job.status === 'running') ? SPREADSHEET_POLL_MS * 2 : false,
  });
}

/** The sample rows under `mapping`, validated by the service (off while there is no phone column). */
export function useSpreadsheetPreview(id: string, mapping: ColumnMapping, enabled: boolean) {
  return useQuery({
    queryKey: spreadsheetKeys.preview(id, mapping),
    queryFn: async ({ signal }): Promise<SpreadsheetPreviewRow[]> =>
      (
        (
          await api.POST('/dashboard/api/spreadsheet-imports/{import_id}/preview', {
            params: { path: { import_id: id } },
            body: { mapping },
            signal,
          })
        ).data as { rows: SpreadsheetPreviewRow[] }
      ).rows,
    enabled,
    placeholderData: (previous) => previous,
  });
}

/** A change to one import (start, cancel): its state is stored, the lists read again. */
function useSpreadsheetChange<T>(
  job: SpreadsheetImport,
  change: (input: T) => Promise<{ data?: SpreadsheetImport }>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: T): Promise<SpreadsheetImport> =>
      (await change(input)).data as SpreadsheetImport,
    onSuccess: async (updated) => {
      queryClient.setQueryData(spreadsheetKeys.one(job.id), updated);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: spreadsheetKeys.ofCampaign(job.campaign_id) }),
        queryClient.invalidateQueries({ queryKey: importKeys.ofCampaign(job.campaign_id) }),
      ]);
    },
  });
}

/** Starts the import with a mapping and the compliance acknowledgement. */
export function useStartSpreadsheetImport(job: SpreadsheetImport) {
  return useSpreadsheetChange(job, (body: StartSpreadsheetImport) =>
    api.POST('/dashboard/api/spreadsheet-imports/{import_id}/start', {
      params: { path: { import_id: job.id } },
      body,
    }),
  );
}

/** Cancels the import before its next chunk. */
export function useCancelSpreadsheetImport(job: SpreadsheetImport) {
  return useSpreadsheetChange(job, () =>
    api.POST('/dashboard/api/spreadsheet-imports/{import_id}/cancel', {
      params: { path: { import_id: job.id } },
    }),
  );
}

/**
 * Drops a query from the cache once nothing observes it. A query removed while a page still
 * observes it is built again, and fetched, on that page's next render: after a discard, the
 * import page stays mounted until the navigation away from it commits (React Router navigates in
 * a transition), so removing the discarded import at once asked the service for it again (a 404).
 */
function forgetWhenUnobserved(queryClient: QueryClient, queryKey: QueryKey): void {
  const cache = queryClient.getQueryCache();
  const query = cache.find({ queryKey, exact: true });
  if (!query) return;
  if (query.getObserversCount() === 0) {
    cache.remove(query);
    return;
  }
  const unsubscribe = cache.subscribe((event) => {
    if (event.query !== query) return;
    if (event.type === 'removed') unsubscribe();
    else if (event.type === 'observerRemoved' && query.getObserversCount() === 0) {
      unsubscribe();
      cache.remove(query);
    }
  });
}

/**
 * Discards an upload never started, with its file (docs/dashboard.md#abandoned-uploads); the
 * campaign's list is read again after.
 */
export function useDiscardSpreadsheetImport(job: SpreadsheetImport) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (): Promise<void> => {
      await api.DELETE('/dashboard/api/spreadsheet-imports/{import_id}', {
        params: { path: { import_id: job.id } },
      });
    },
    onSuccess: async () => {
      forgetWhenUnobserved(queryClient, spreadsheetKeys.one(job.id));
      await queryClient.invalidateQueries({
        queryKey: spreadsheetKeys.ofCampaign(job.campaign_id),
      });
    },
  });
}
