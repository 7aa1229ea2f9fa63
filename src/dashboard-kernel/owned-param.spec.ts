import { Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  AccountAccessRepository,
  type OwnedLookup,
} from '../account-access/account-access.repository';
import { AccountAccessService } from '../account-access/account-access.service';
import type { Owned } from '../common/owned-id';
import { DashboardAccess, DashboardController } from './dashboard-access';
import type { DashboardRequest } from './dashboard-request';
import { installDashboardRouteCheck } from './dashboard-routes';
import { OwnedParam, ownedParamOf } from './owned-param';

/** Stands for PostgreSQL: endpoint 7 and one spreadsheet import are account 1's. */
class FakeAccessRepository {
  owned(accountId: number, lookups: readonly OwnedLookup[]) {
    const ours: Record<string, string[]> = {
      endpoint: ['7'],
      'spreadsheet-import': ['0f8fad5b-d9cb-469f-a165-70867728950e'],
    };
    return Promise.resolve(
      new Map(
        lookups.map(({ kind, ids }) => [
          kind,
          new Set(accountId === 1 ? ids.filter((id) => ours[kind]?.includes(id)) : []),
        ]),
      ),
    );
  }
}

@DashboardController('owned')
class OwnedController {
  @Get('endpoints/:endpoint_id/imports/:import_id')
  @DashboardAccess(
    'any',
    { resource: 'endpoint', param: 'endpoint_id' },
    { resource: 'spreadsheet-import', param: 'import_id' },
  )
  both(
    @OwnedParam('endpoint_id') endpoint: Owned<'endpoint'>,
    @OwnedParam('import_id') spreadsheet: Owned<'spreadsheet-import'>,
  ): object {
    return { endpoint, spreadsheet };
  }
}

@Module({
  controllers: [OwnedController],
  providers: [
    { provide: AccountAccessRepository, useClass: FakeAccessRepository },
    AccountAccessService,
  ],
})
class OwnedModule {}

describe('@OwnedParam (docs/architecture.md#account-access)', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    const adapter = new FastifyAdapter();
    installDashboardRouteCheck(adapter.getInstance());
    adapter.getInstance().addHook('onRequest', async (request: DashboardRequest) => {
      request.dashboardSession = {
        token: 't',
        user: { id: 1, accountId: 1, email: 'ada@example.com', role: 'viewer' },
      } as unknown as DashboardRequest['dashboardSession'];
    });
    app = await NestFactory.create<NestFastifyApplication>(OwnedModule, adapter, {
      logger: false,
      abortOnError: false,
    });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });
  afterAll(() => app.close());

  it('hands the route the ids the guard checked, as its pipe reads them', async () => {
    const res = await fetch(
      `${base}/dashboard/api/owned/endpoints/7/imports/0F8FAD5B-D9CB-469F-A165-70867728950E`,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      endpoint: 7,
      spreadsheet: '0f8fad5b-d9cb-469f-a165-70867728950e',
    });
  });

  it('refuses, when the class is defined, a parameter the route does not declare', () => {
    expect(() => {
      @DashboardController('careless')
      class CarelessController {
        @Get('campaigns/:campaign_id/endpoints/:endpoint_id')
        @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
        things(@OwnedParam('campaign_id') campaign: Owned<'campaign'>): object {
          return { campaign };
        }
      }
      return CarelessController;
    }).toThrow(
      "@OwnedParam('campaign_id') on CarelessController.things: the route's @DashboardAccess " +
        'declares no resource in path parameter campaign_id',
    );
  });

  it('fails the call of a route that escaped that check, naming the parameter', () => {
    const request = {
      method: 'GET',
      routeOptions: {
        url: '/dashboard/api/owned/campaigns/:campaign_id',
        config: { dashboard: { access: 'any' } },
      },
    } as unknown as DashboardRequest;
    expect(() => ownedParamOf(request, 'campaign_id')).toThrow(
      "@OwnedParam('campaign_id') on GET /dashboard/api/owned/campaigns/:campaign_id: the " +
        "route's @DashboardAccess declares no resource in path parameter campaign_id",
    );
    const declared = {
      ...request,
      routeOptions: {
        ...request.routeOptions,
        config: {
          dashboard: { access: 'any', resources: [{ resource: 'campaign', param: 'campaign_id' }] },
        },
      },
    } as unknown as DashboardRequest;
    expect(() => ownedParamOf(declared, 'campaign_id')).toThrow(
      "DashboardResourceGuard has not checked this request's campaign_id",
    );
  });
});
