import Fastify from 'fastify';
import { dashboardRoutes, installDashboardRouteCheck } from './dashboard-routes';

describe('dashboard routes must declare their access (docs/dashboard.md#access-rules)', () => {
  it('refuses a route under /dashboard/api/ without @DashboardAccess, at registration', async () => {
    const fastify = Fastify();
    installDashboardRouteCheck(fastify);
    expect(() => fastify.get('/dashboard/api/campaigns', async () => [])).toThrow(
      'Dashboard route GET /dashboard/api/campaigns declares no access',
    );
    await fastify.close();
  });

  it('keeps the declared routes, and ignores routes elsewhere and the document', async () => {
    const fastify = Fastify();
    installDashboardRouteCheck(fastify);
    fastify.get('/api/v1/things', async () => []);
    fastify.get('/dashboard/*', async () => '');
    fastify.get('/dashboard/api/docs-json', async () => ({}));
    fastify.post(
      '/dashboard/api/things/:id',
      { config: { dashboard: { access: 'admin' } } },
      async () => ({}),
    );
    await fastify.ready();
    expect(dashboardRoutes(fastify)).toEqual([
      { method: 'GET', url: '/dashboard/api/docs-json', access: undefined },
      { method: 'HEAD', url: '/dashboard/api/docs-json', access: undefined },
      { method: 'POST', url: '/dashboard/api/things/:id', access: 'admin' },
    ]);
    await fastify.close();
  });
});
