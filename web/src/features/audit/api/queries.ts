import type { components } from '../../../api/schema';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** One audit log entry (docs/dashboard.md#audit-log): never a secret. */
export type AuditEntry = components['schemas']['AuditEntry'];
export type AuditPage = components['schemas']['AuditLogPage'];
/** An action the audit log records. */
export type AuditAction = AuditEntry['action'];

/** Entries per page. */
export const AUDIT_PAGE_SIZE = 50;

/** Which entries to list: one action's and/or one user's (by email); empty strings for all. */
export interface AuditFilters {
  action: AuditAction | '';
  user: string;
}

export const NO_AUDIT_FILTERS: AuditFilters = { action: '', user: '' };

/** The query parameters of `filters` and `cursor`: only those given. */
export function auditQuery(filters: AuditFilters, cursor: string | null) {
  return {
    limit: AUDIT_PAGE_SIZE,
    ...(cursor ? { cursor } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.user.trim() ? { user: filters.user.trim() } : {}),
  };
}

/** The audit log under `filters`, newest first, a page of `next_cursor` at a time. */
export function useAuditLog(filters: AuditFilters = NO_AUDIT_FILTERS) {
  return useInfiniteQuery({
    queryKey: ['audit-log', filters.action, filters.user.trim()],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }): Promise<AuditPage> =>
      (
        await api.GET('/dashboard/api/audit-log', {
          params: { query: auditQuery(filters, pageParam) },
          signal,
        })
      ).data as AuditPage,
    getNextPageParam: (page) => page.next_cursor,
    placeholderData: keepPreviousData,
  });
}
