import Fastify from 'fastify';
import {
  dashboardRoutes,
  installDashboardRouteCheck,
  pathParameters,
  resourceRuleProblems,
} from './dashboard-routes';

describe('dashboard routes must declare their access (docs/dashboard.md#access-rules)', () => {
  it('refuses a route under /dashboard/api/ without @DashboardAccess, at registration', async () => {
    const fastify = Fastify();
    installDashboardRouteCheck(fastify);
    expect(() => fastify.get('/dashboard/api/campaigns', async () => [])).toThrow(
      'Dashboard route GET /dashboard/api/campaigns declares no access',
    );
    await fastify.close();
  });

  it('refuses a route whose path takes an id it does not declare as a resource, at registration', async () => {
    const fastify = Fastify();
    installDashboardRouteCheck(fastify);
    expect(() =>
      fastify.get(
        '/dashboard/api/endpoints/:endpoint_id',
        { config: { dashboard: { access: 'any' } } },
        async () => ({}),
      ),
    ).toThrow(
      'Dashboard route GET /dashboard/api/endpoints/:endpoint_id does not declare the resources ' +
        'its path names (path parameter endpoint_id names no resource)',
    );
    expect(() =>
      fastify.post(
        '/dashboard/api/endpoints/:endpoint_id/test',
        {
          config: {
            dashboard: { access: 'admin', resources: [{ resource: 'campaign', param: 'id' }] },
          },
        },
        async () => ({}),
      ),
    ).toThrow(
      '(path parameter endpoint_id names no resource; id is declared twice or is not a path parameter)',
    );
    await fastify.close();
  });

  it('keeps the declared routes, and ignores routes elsewhere and the document', async () => {
    const fastify = Fastify();
    installDashboardRouteCheck(fastify);
    fastify.get('/api/v1/things/:id', async () => []);
    fastify.get('/dashboard/*', async () => '');
    fastify.get('/dashboard/api/docs-json', async () => ({}));
    fastify.get('/dashboard/api/things', { config: { dashboard: { access: 'any' } } }, async () => [
      {},
    ]);
    const resources = [{ resource: 'endpoint', param: 'id' }] as const;
    fastify.post(
      '/dashboard/api/things/:id',
      { config: { dashboard: { access: 'admin', resources } } },
      async () => ({}),
    );
    await fastify.ready();
    expect(dashboardRoutes(fastify)).toEqual([
      { method: 'GET', url: '/dashboard/api/docs-json', access: undefined, resources: [] },
      { method: 'HEAD', url: '/dashboard/api/docs-json', access: undefined, resources: [] },
      { method: 'GET', url: '/dashboard/api/things', access: 'any', resources: [] },
      { method: 'HEAD', url: '/dashboard/api/things', access: 'any', resources: [] },
      { method: 'POST', url: '/dashboard/api/things/:id', access: 'admin', resources },
    ]);
    await fastify.close();
  });
});

describe('resourceRuleProblems', () => {
  it('names each path parameter left undeclared, unknown resources, and stray declarations', () => {
    expect(pathParameters('/dashboard/api/imports/:import_id/rejections.csv')).toEqual([
      'import_id',
    ]);
    expect(
      resourceRuleProblems('/dashboard/api/imports/:import_id/rejections.csv', [
        { resource: 'import', param: 'import_id' },
      ]),
    ).toEqual([]);
    expect(
      resourceRuleProblems('/dashboard/api/a/:a_id/b/:b_id', [
        { resource: 'campaign', param: 'a_id' },
        { resource: 'campaign', param: 'a_id' },
        { resource: 'user' as 'campaign', param: 'c_id' },
      ]),
    ).toEqual([
      'path parameter b_id names no resource',
      'user is not a resource an account owns',
      'a_id is declared twice or is not a path parameter',
      'c_id is declared twice or is not a path parameter',
    ]);
  });
});
