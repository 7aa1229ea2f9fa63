import { describe, expect, it, vi } from 'vitest';
import { takeLinkFromLocation } from './portal-app';
import { isFromHost, messageFor, parentOriginOf, postToHost } from './portal-messages';

const ORIGIN = 'http://127.0.0.1:3000';
const LINK = '8d6c0d4e-6f0b-4b8e-9a53-2c1f8f0c4f11';

describe('the embedded portal’s link and messages (docs/dashboard.md#embedding-the-portal)', () => {
  it('takes the secret from the fragment and removes it from the address at once', () => {
    const replaceState = vi.fn();
    const link = takeLinkFromLocation(
      { pathname: `/portal/${LINK}`, hash: '#cpl_secret' },
      { replaceState },
    );
    expect(link).toEqual({ linkId: LINK, secret: 'cpl_secret' });
    expect(replaceState).toHaveBeenCalledWith(null, '', `/portal/${LINK}`);
    expect(takeLinkFromLocation({ pathname: `/portal/${LINK}`, hash: '' }, { replaceState })).toBe(
      null,
    );
  });

  it('posts to the parent origin only, never to *', () => {
    const parent = { postMessage: vi.fn() };
    postToHost({ type: 'session.expired' }, 'https://app.example.com', parent);
    expect(parent.postMessage).toHaveBeenCalledWith(
      { type: 'session.expired' },
      'https://app.example.com',
    );
  });

  it('accepts a message only from the parent window on the parent origin', () => {
    const parent = {};
    expect(
      isFromHost(
        { origin: 'https://app.example.com', source: parent as Window },
        'https://app.example.com',
        parent,
      ),
    ).toBe(true);
    expect(
      isFromHost(
        { origin: 'https://evil.example.net', source: parent as Window },
        'https://app.example.com',
        parent,
      ),
    ).toBe(false);
    expect(
      isFromHost(
        { origin: 'https://app.example.com', source: {} as Window },
        'https://app.example.com',
        parent,
      ),
    ).toBe(false);
  });

  it('reads the parent origin the service wrote, and nothing else', () => {
    const doc = document.implementation.createHTMLDocument();
    expect(parentOriginOf(doc)).toBeNull();
    doc.head.innerHTML = '<meta name="portal-parent-origin" content="https://app.example.com">';
    expect(parentOriginOf(doc)).toBe('https://app.example.com');
    doc.head.innerHTML = '<meta name="portal-parent-origin" content="*">';
    expect(parentOriginOf(doc)).toBeNull();
  });

  it('turns answers into messages: 401, a created and a deleted endpoint', async () => {
    const request = (method: string, path: string) => new Request(`${ORIGIN}${path}`, { method });
    expect(
      await messageFor(
        request('GET', '/dashboard/api/campaigns'),
        new Response(null, { status: 401 }),
      ),
    ).toEqual({ type: 'session.expired' });
    expect(
      await messageFor(
        request('POST', '/dashboard/api/campaigns/12/endpoints'),
        new Response(JSON.stringify({ endpoint: { id: 7 }, secret: 'whsec_x' }), { status: 201 }),
      ),
    ).toEqual({ type: 'endpoint.created', endpoint_id: 7, campaign_id: 12 });
    expect(
      await messageFor(
        request('DELETE', '/dashboard/api/endpoints/7'),
        new Response(null, { status: 204 }),
      ),
    ).toEqual({ type: 'endpoint.deleted', endpoint_id: 7 });
    expect(
      await messageFor(
        request('GET', '/dashboard/api/campaigns'),
        new Response('[]', { status: 200 }),
      ),
    ).toBeNull();
  });
});
