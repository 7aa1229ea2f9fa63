import { vi } from 'vitest';
import type { Session } from '../lib/auth';

/** A session as `GET /dashboard/api/session` answers it. */
export function fakeSession(overrides: Partial<Session['user']> = {}): Session {
  return {
    user: { id: 7, account_id: 3, email: 'ada@example.com', role: 'admin', ...overrides },
    csrf_token: 'csrf-token-of-the-session',
  };
}

/** A JSON response. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/** A fetch stub answering each request with `answer(request)`; `requests()` are the requests sent (unread). */
export function stubFetch(answer: (request: Request) => Response | Promise<Response>) {
  const sent: Request[] = [];
  const fetchStub = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    // jsdom's AbortSignal is not the one Node's Request accepts: the stub ignores signals.
    const request =
      input instanceof Request ? input : new Request(input, { ...init, signal: undefined });
    sent.push(request.clone());
    return answer(request);
  });
  vi.stubGlobal('fetch', fetchStub);
  return { fetchStub, requests: () => [...sent] };
}
