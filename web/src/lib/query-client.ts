import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError } from './api-errors';
import { endSession, sessionQueryKey } from './auth';

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /** A 401 answer is part of the mutation's normal outcomes (sign-in), not an ended session. */
      unauthorizedIsExpected?: boolean;
    };
  }
}

/** Whether a failed request is worth retrying: no answer at all, or a server-side failure. */
export function isRetryable(error: unknown): boolean {
  if (!isApiError(error)) return false;
  return error.status === 0 || error.status === 502 || error.status === 503 || error.status === 504;
}

/**
 * The app's query client: a 401 from any request but the session's own means the session
 * ended (30 minutes idle, 12 hours, a password reset): every page then sends the user to sign
 * in. Reads retry twice when the service could not answer, never on a 4xx.
 */
export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (isApiError(error, 401) && query.queryKey[0] !== sessionQueryKey[0]) {
          endSession(queryClient, 'expired');
        }
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (isApiError(error, 401) && !mutation.meta?.unauthorizedIsExpected) {
          endSession(queryClient, 'expired');
        }
      },
    }),
    defaultOptions: {
      queries: {
        retry: (failureCount, error) => failureCount < 2 && isRetryable(error),
        staleTime: 30_000,
      },
      mutations: { retry: false },
    },
  });
  return queryClient;
}
