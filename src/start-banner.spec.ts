import { localOrigin, startBanner } from './start-banner';

describe('startBanner', () => {
  it('names the API, dashboard and docs URLs on the bound port, and sums up the migrations', () => {
    const banner = startBanner({
      address: { address: '127.0.0.1', family: 'IPv4', port: 41234 },
      databaseUrl: 'postgres://postgres:hunter2@127.0.0.1:5432/campaign_api',
      migrationsApplied: ['InitialSchema1795386531968', 'WebhookDelivery1795387645779'],
    });
    expect(banner).toBe(
      [
        'Campaign API is ready; database campaign_api: 2 migrations applied.',
        '  API        http://127.0.0.1:41234/api/v1',
        '  Dashboard  http://127.0.0.1:41234/dashboard/',
        '  API docs   http://127.0.0.1:41234/api/docs',
        '',
      ].join('\n'),
    );
    expect(banner).not.toContain('hunter2');
    expect(banner).not.toContain('InitialSchema');
  });

  it('shows a server bound to every interface at 127.0.0.1 and says so', () => {
    const banner = startBanner({
      address: { address: '0.0.0.0', family: 'IPv4', port: 3000 },
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/campaign_api',
      migrationsApplied: [],
    });
    expect(banner.split('\n')[0]).toBe(
      'Campaign API is ready (listening on every interface, port 3000); database campaign_api: schema up to date.',
    );
    expect(banner).toContain('  Dashboard  http://127.0.0.1:3000/dashboard/\n');
  });

  it('brackets an IPv6 address', () => {
    expect(localOrigin({ address: '::1', family: 'IPv6', port: 8080 })).toBe('http://[::1]:8080');
    expect(localOrigin({ address: '::', family: 'IPv6', port: 8080 })).toBe(
      'http://127.0.0.1:8080',
    );
  });
});
