import { crossOriginProblem } from './request-origin';

describe('the origin rule (docs/dashboard.md#cross-site-request-forgery)', () => {
  const service = 'https://dash.example.com';

  it('lets through requests without Origin and Sec-Fetch-Site (non-browser clients)', () => {
    expect(crossOriginProblem({}, service)).toBeNull();
  });

  it.each([
    [{ origin: 'https://dash.example.com' }],
    [{ origin: 'HTTPS://DASH.EXAMPLE.COM:443' }],
    [{ 'sec-fetch-site': 'same-origin' }],
    [{ origin: 'https://dash.example.com', 'sec-fetch-site': 'Same-Origin' }],
  ])('accepts the dashboard’s own origin: %j', (headers) => {
    expect(crossOriginProblem(headers, service)).toBeNull();
  });

  it.each([
    [{ origin: 'https://evil.example' }],
    [{ origin: 'http://dash.example.com' }],
    [{ origin: 'https://dash.example.com:8443' }],
    [{ origin: 'https://sub.dash.example.com' }],
    [{ origin: 'null' }],
    [{ origin: 'not a url' }],
    [{ 'sec-fetch-site': 'same-site' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'none' }],
    [{ origin: 'https://dash.example.com', 'sec-fetch-site': 'cross-site' }],
  ])('refuses %j', (headers) => {
    expect(crossOriginProblem(headers, service)).toMatch(/must come from the dashboard/);
  });
});
