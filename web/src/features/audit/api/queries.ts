import type { components } from '../../../api/schema';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** One audit log entry (docs/dashboard.md#audit-log): never a secret. */
export type AuditEntry = components['schemas']['AuditEntry'];
export type AuditPage = components['schemas']['AuditLogPage'];

/** Entries per page. */
export const AUDIT_PAGE_SIZE = 50;

/** The audit log, newest first, a page of `next_cursor` at a time. */
export function useAuditLog() {
  return useInfiniteQuery({
    queryKey: ['audit-log'],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<AuditPage> => {
      const query = pageParam
        ? { limit: AUDIT_PAGE_SIZE, cursor: pageParam }
        : { limit: AUDIT_PAGE_SIZE };
      return (await api.GET('/dashboard/api/audit-log', { params: { query }, signal }))
        .data as AuditPage;
    },
    getNextPageParam: (page) => page.next_cursor,
  });
}
