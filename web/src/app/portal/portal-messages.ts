/**
 * The messages between an embedded portal and the page that frames it
 * (docs/dashboard.md#embedding-the-portal). The portal posts only to its parent origin (the one
 * its link was minted for, never `*`) and accepts only messages whose `origin` is that origin
 * and whose source is its parent window. No message carries a secret.
 */

/** A message the portal posts to its host page. */
export type PortalMessage =
  | { type: 'portal.ready'; link_id: string }
  | { type: 'endpoint.created'; endpoint_id: number; campaign_id: number }
  | { type: 'endpoint.deleted'; endpoint_id: number }
  | { type: 'session.expired' }
  | { type: 'portal.pong' };

/** The parent origin the service wrote into the portal page (`<meta name="portal-parent-origin">`). */
export function parentOriginOf(doc: Document = document): string | null {
  const meta = doc.querySelector<HTMLMetaElement>('meta[name="portal-parent-origin"]');
  const origin = meta?.content ?? '';
  return /^https?:\/\/[^/]+$/.test(origin) ? origin : null;
}

/** Posts `message` to the parent window, to `parentOrigin` only. */
export function postToHost(
  message: PortalMessage,
  parentOrigin: string,
  parent: Pick<Window, 'postMessage'> = window.parent,
): void {
  parent.postMessage(message, parentOrigin);
}

/**
 * Whether a `message` event comes from the host page: its origin is `parentOrigin` and its
 * source the parent window. Anything else is ignored.
 */
export function isFromHost(
  event: Pick<MessageEvent, 'origin' | 'source'>,
  parentOrigin: string,
  parent: unknown = window.parent,
): boolean {
  return event.origin === parentOrigin && event.source === parent && parent !== window;
}

/**
 * The message an answer of the dashboard API makes the portal post, if any: `session.expired`
 * for `401`, `endpoint.created` for a created endpoint, `endpoint.deleted` for a deleted one.
 */
export async function messageFor(
  request: Request,
  response: Response,
): Promise<PortalMessage | null> {
  const path = new URL(request.url).pathname;
  if (response.status === 401) return { type: 'session.expired' };
  const created = /^\/dashboard\/api\/campaigns\/(\d+)\/endpoints$/.exec(path);
  if (created && request.method === 'POST' && response.status === 201) {
    const body = (await response.json()) as { endpoint?: { id?: unknown } };
    const id = body.endpoint?.id;
    return typeof id === 'number'
      ? { type: 'endpoint.created', endpoint_id: id, campaign_id: Number(created[1]) }
      : null;
  }
  const deleted = /^\/dashboard\/api\/endpoints\/(\d+)$/.exec(path);
  if (deleted && request.method === 'DELETE' && response.status === 204) {
    return { type: 'endpoint.deleted', endpoint_id: Number(deleted[1]) };
  }
  return null;
}
