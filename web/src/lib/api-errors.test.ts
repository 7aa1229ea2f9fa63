import { describe, expect, it } from 'vitest';
import { apiErrorFromResponse, errorMessage, parseRetryAfter } from './api-errors';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');

  it.each([
    ['42', 42],
    [' 7 ', 7],
    ['0', 0],
    ['Mon, 23 Nov 2026 10:00:30 GMT', 30],
    ['Mon, 23 Nov 2026 09:59:00 GMT', 0],
    ['soon', null],
    ['', null],
    [null, null],
  ])('reads %j as %j seconds', (header, seconds) => {
    expect(parseRetryAfter(header, now)).toBe(seconds);
  });
});

describe('apiErrorFromResponse', () => {
  it('ignores an envelope with an empty message', async () => {
    const error = await apiErrorFromResponse(
      new Response(JSON.stringify({ error: 'forbidden', message: '' }), { status: 403 }),
    );
    expect(error.message).toBe('You are not allowed to do that.');
    expect(error.code).toBe('forbidden');
  });
});

describe('errorMessage', () => {
  it('does not show the text of an unexpected error', () => {
    expect(errorMessage(new TypeError('x is undefined'))).toBe(
      'Something went wrong. Reload the page and try again.',
    );
  });
});
