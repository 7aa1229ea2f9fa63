import { Get, Module, Param } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  AccountAccessRepository,
  type OwnedLookup,
} from '../account-access/account-access.repository';
import { AccountAccessService } from '../account-access/account-access.service';
import { ErrorEnvelopeFilter } from '../common/error-envelope.filter';
import { DashboardAccess, DashboardController } from './dashboard-access';
import type { DashboardRequest } from './dashboard-request';
import { installDashboardRouteCheck } from './dashboard-routes';
import { DashboardIdPipe, uuidParam } from './dashboard-input';

/** What the fake database holds: per kind, the ids of account 1 (every other id is another's). */
const OWNED_BY_ACCOUNT_1: Record<string, string[]> = {
  endpoint: ['7'],
  'spreadsheet-import': ['0f8fad5b-d9cb-469f-a165-70867728950e'],
};

/** Stands for PostgreSQL: answers from {@link OWNED_BY_ACCOUNT_1}, counting its queries. */
class FakeAccessRepository {
  queries: OwnedLookup[][] = [];
  owned(accountId: number, lookups: readonly OwnedLookup[]) {
    this.queries.push([...lookups]);
    return Promise.resolve(
      new Map(
        lookups.map(({ kind, ids }) => [
          kind,
          new Set(
            accountId === 1 ? ids.filter((id) => OWNED_BY_ACCOUNT_1[kind]?.includes(id)) : [],
          ),
        ]),
      ),
    );
  }
}

@DashboardController('probe')
class ProbeController {
  @Get('endpoints/:endpoint_id')
  @DashboardAccess('any', { resource: 'endpoint', param: 'endpoint_id' })
  endpoint(@Param('endpoint_id', DashboardIdPipe) id: number): object {
    return { id };
  }

  @Get('spreadsheet-imports/:import_id')
  @DashboardAccess('any', { resource: 'spreadsheet-import', param: 'import_id' })
  spreadsheet(@Param('import_id') id: string): object {
    return { id: uuidParam(id, 'spreadsheet import') };
  }

  @Get('plain')
  @DashboardAccess('any')
  plain(): object {
    return {};
  }
}

@Module({
  controllers: [ProbeController],
  providers: [
    { provide: AccountAccessRepository, useClass: FakeAccessRepository },
    AccountAccessService,
    { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
  ],
})
class ProbeModule {}

@DashboardController('careless')
class CarelessController {
  @Get(':campaign_id/things')
  @DashboardAccess('any')
  things(@Param('campaign_id') id: string): object {
    return { id };
  }
}

@Module({
  controllers: [CarelessController],
  providers: [
    { provide: AccountAccessRepository, useClass: FakeAccessRepository },
    AccountAccessService,
  ],
})
class CarelessModule {}

describe('DashboardResourceGuard (docs/dashboard.md#access-rules)', () => {
  let app: NestFastifyApplication;
  let repository: FakeAccessRepository;
  /** The signed-in account of the next request, as DashboardSessionGuard would set it. */
  let accountId: number | undefined;
  let base: string;

  beforeAll(async () => {
    const adapter = new FastifyAdapter();
    installDashboardRouteCheck(adapter.getInstance());
    adapter.getInstance().addHook('onRequest', async (request: DashboardRequest) => {
      if (accountId !== undefined) {
        request.dashboardSession = {
          sessionId: 's',
          csrfToken: 'c',
          token: 't',
          user: { id: 1, accountId, email: 'ada@example.com', role: 'viewer' },
        } as unknown as DashboardRequest['dashboardSession'];
      }
    });
    app = await NestFactory.create<NestFastifyApplication>(ProbeModule, adapter, {
      logger: false,
      abortOnError: false,
    });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
    repository = app.get(AccountAccessRepository);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    accountId = 1;
    repository.queries = [];
  });

  const get = async (url: string) => {
    const res = await fetch(`${base}/dashboard/api/probe/${url}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it("lets the account's own resource through, in one query", async () => {
    expect(await get('endpoints/7')).toEqual({ status: 200, body: { id: 7 } });
    expect(await get('spreadsheet-imports/0F8FAD5B-D9CB-469F-A165-70867728950E')).toEqual({
      status: 200,
      body: { id: '0f8fad5b-d9cb-469f-a165-70867728950e' },
    });
    expect(repository.queries).toEqual([
      [{ kind: 'endpoint', type: 'integer', ids: ['7'] }],
      [
        {
          kind: 'spreadsheet-import',
          type: 'uuid',
          ids: ['0f8fad5b-d9cb-469f-a165-70867728950e'],
        },
      ],
    ]);
  });

  it("answers another account's resource with the same 404 as a missing one", async () => {
    accountId = 2;
    const theirs = await get('endpoints/7');
    accountId = 1;
    const missing = await get('endpoints/8');
    expect(theirs).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'webhook endpoint 7 does not exist' },
    });
    expect(missing).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'webhook endpoint 8 does not exist' },
    });
    accountId = 2;
    expect(await get('spreadsheet-imports/0f8fad5b-d9cb-469f-a165-70867728950e')).toEqual({
      status: 404,
      body: {
        error: 'not_found',
        message: 'spreadsheet import 0f8fad5b-d9cb-469f-a165-70867728950e does not exist',
      },
    });
  });

  it('reads a malformed id as the route’s pipe does, before any query', async () => {
    for (const id of ['abc', '0', '-1', '01', '1.5', '12345678901234567']) {
      expect(await get(`endpoints/${id}`)).toEqual({
        status: 400,
        body: { error: 'bad_request', message: 'endpoint_id must be a positive integer' },
      });
    }
    expect(await get('spreadsheet-imports/not-a-uuid')).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'spreadsheet import not-a-uuid does not exist' },
    });
    expect(repository.queries).toEqual([]);
  });

  it('answers an id beyond PostgreSQL’s integer 404 without a query', async () => {
    expect(await get('endpoints/2147483648')).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'webhook endpoint 2147483648 does not exist' },
    });
    expect(repository.queries).toEqual([]);
  });

  it('leaves a route that names no resource alone', async () => {
    expect(await get('plain')).toEqual({ status: 200, body: {} });
    expect(repository.queries).toEqual([]);
  });

  it('refuses a declaring route without a session (401)', async () => {
    accountId = undefined;
    expect((await get('endpoints/7')).status).toBe(401);
    expect(repository.queries).toEqual([]);
  });
});

describe('a dashboard route taking an id it does not declare', () => {
  it('stops the application at start-up', async () => {
    const adapter = new FastifyAdapter();
    installDashboardRouteCheck(adapter.getInstance());
    const app = await NestFactory.create<NestFastifyApplication>(CarelessModule, adapter, {
      logger: false,
      abortOnError: false,
    });
    await expect(app.init()).rejects.toThrow(
      'Dashboard route GET /dashboard/api/careless/:campaign_id/things does not declare the ' +
        'resources its path names (path parameter campaign_id names no resource)',
    );
    await app.close().catch(() => undefined);
  });
});
