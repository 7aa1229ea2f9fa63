import { looksLikeSecret, redactUrl } from './logging';

const API_KEY = `capi_${'A'.repeat(43)}`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

describe('redactUrl (defect 12)', () => {
  it('leaves a URL without a query string as it is', () => {
    expect(redactUrl('/api/v1/webhooks/1/events')).toBe('/api/v1/webhooks/1/events');
    expect(redactUrl(undefined)).toBeUndefined();
  });

  it('replaces every query value with [redacted], keeping plain names', () => {
    expect(redactUrl(`/api/v1/webhooks/1/events?api_key=${API_KEY}&access_token=${JWT}`)).toBe(
      '/api/v1/webhooks/1/events?api_key=[redacted]&access_token=[redacted]',
    );
    expect(redactUrl('/x?page=2&empty=&flag')).toBe(
      '/x?page=[redacted]&empty=[redacted]&[redacted]',
    );
  });

  it('redacts secret-shaped or odd parameter names and bare parameters', () => {
    expect(redactUrl(`/x?${API_KEY}`)).toBe('/x?[redacted]');
    expect(redactUrl(`/x?${API_KEY}=1`)).toBe('/x?[redacted]=[redacted]');
    expect(redactUrl(`/x?${JWT}=`)).toBe('/x?[redacted]=[redacted]');
    expect(redactUrl('/x?api%5Fkey=capi_x')).toBe('/x?[redacted]=[redacted]');
    expect(redactUrl('/x?a=1&&b=2')).toBe('/x?a=[redacted]&&b=[redacted]');
  });

  it('never lets a secret through, wherever it sits in the query', () => {
    for (const url of [
      `/x?token=${encodeURIComponent(API_KEY)}`,
      `/x?a=b=${API_KEY}`,
      `/x?a=1#${API_KEY}`,
      `/x?a=1?${JWT}`,
    ]) {
      const redacted = redactUrl(url);
      expect(redacted).not.toContain('capi_');
      expect(redacted).not.toContain('eyJ');
    }
  });
});

describe('looksLikeSecret (defect 12)', () => {
  it.each([API_KEY, `x-${API_KEY}`, 'whsec_abc', JWT, 'eyJhbGciOiJIUzI1NiJ9', 'a.b.c'])(
    'recognises %s',
    (value) => expect(looksLikeSecret(value)).toBe(true),
  );

  it.each(['trace-abc.123', '0f8c5b8e-6f1c-4e1e-9a57-0a9d0f6f2f4e', 'req:42', 'a.b'])(
    'does not flag %s',
    (value) => expect(looksLikeSecret(value)).toBe(false),
  );
});
