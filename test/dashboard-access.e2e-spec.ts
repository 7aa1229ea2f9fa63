/**
 * The dashboard API's access rules, route by route (docs/dashboard.md#access-rules). The routes
 * are discovered from the Fastify route table (every route registered under /dashboard/api/,
 * with the access its `@DashboardAccess` declares), so a route added without being listed in
 * ROUTES below fails the first test, and every route listed gets the generic checks:
 *
 * - without a valid session: 401 (the sign-in: 403 without `X-CSRF-Token: sign-in`);
 * - a state-changing route with a valid session but without the session's X-CSRF-Token, with a
 *   wrong one, from a foreign Origin or with a cross-site Sec-Fetch-Site: 403;
 * - an `admin` route with a viewer's session (and a valid CSRF token): 403;
 * - an `any` route with a viewer's session: a 2xx answer (given `params` of the viewer's account)
 *   with `Cache-Control: no-store`, as every answer of the dashboard API has;
 * - where the row has `foreign`: 404 for a resource of another account, the same answer as for
 *   an id that does not exist;
 * - a query parameter the route does not document in the dashboard's OpenAPI document: 422
 *   naming it, even from an admin with every other part of the request right; a documented one
 *   whose value holds a NUL, or a JSON body holding one: 422 naming it;
 * - the query parameters the document declares (each row's `queries`, which must name exactly
 *   those): accepted together, a 2xx answer;
 *
 * and every refused request changes nothing in the database.
 *
 * To add a route: add a row to ROUTES with the access it must have and, when the route needs
 * them to get past its own validation, `params` and `body` built from the caller's account
 * (`Fixture`; `mine(…)` names a resource of it, made once per fixture by `world`). Cross-account
 * checks go in the row's `foreign` (`theirs(…)`: the same resource of another account), and a
 * valid value of each query parameter the route documents in `queries`.
 */
import {
  dashboardRoutes,
  DASHBOARD_OPENAPI_JSON_PATH,
} from '../src/dashboard-kernel/dashboard-routes';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { DashboardAccessLevel } from '../src/dashboard-kernel/dashboard-access';
import { encodeAuditCursor } from '../src/audit/audit-cursor';
import { DeliveryRecoveries } from '../src/delivery/recovery/delivery-recovery.service';
import { encodeLogCursor } from '../src/delivery/attempts/delivery-log';
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import { encodeSearchCursor } from '../src/leads/search/lead-search';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';
import { EndpointTransformations } from '../src/webhooks/endpoint-transformations.service';
import { COOKIE, givenUser, signIn, type GivenUser } from './support/dashboard';
import { startTestApp, uploadBody, type TestApp } from './support/test-app';
import { madeUpEvent } from './support/events';

/** What a route's checks can build its requests from: an account with an admin and a viewer. */
interface Fixture {
  t: TestApp;
  accountId: number;
  admin: GivenUser;
  viewer: GivenUser;
  /** Another account, for cross-account checks. */
  otherAccountId: number;
}

interface RouteCase {
  /** The access the route must declare. */
  access: DashboardAccessLevel;
  /** Path parameters (`:name` → value); a parameter not given is `1`. */
  params?: (fixture: Fixture) => Promise<Record<string, string | number>>;
  /** The JSON body of a POST, PUT or PATCH; `{}` when not given. */
  body?: (fixture: Fixture) => Promise<unknown>;
  /** A query string (`?name=value`) the route needs to answer a viewer. */
  query?: string;
  /**
   * A valid value of every query parameter the route documents in the dashboard's OpenAPI
   * document, and of no other: sent together, they must get a 2xx answer.
   */
  queries?: Record<string, string>;
  /** A raw body sent as `application/octet-stream` where the route takes a file (`queries` test). */
  file?: Buffer;
  /**
   * Path parameters naming a resource of `otherAccountId` (or none at all): the route must
   * answer 404 `not_found` to the admin of `accountId`, and change nothing.
   */
  foreign?: (fixture: Fixture) => Promise<Record<string, string | number>>;
}

/** One of each resource of an account: what path ids are built from. */
interface World {
  campaignId: number;
  endpointId: number;
  /** A finished attempt of `endpointId` (a ping that failed: nothing listens there). */
  attemptId: number;
  /** A pending delivery to `endpointId`. */
  deliveryId: number;
  apiKeyId: number;
  /** An import (upload) of `campaignId` by `apiKeyId`, with one rejected row. */
  importId: string;
  /** A lead of `campaignId`, uploaded with the key `apiKeyId`. */
  leadId: number;
  /** A spreadsheet import of `campaignId`, uploaded (not started), of two rows. */
  spreadsheetImportId: string;
}

const worlds = new WeakMap<Fixture, Map<number, Promise<World>>>();

/** The resources of `accountId`, made once per fixture through the services the CLI uses. */
function world(f: Fixture, accountId: number): Promise<World> {
  let byAccount = worlds.get(f);
  if (!byAccount) worlds.set(f, (byAccount = new Map()));
  let made = byAccount.get(accountId);
  if (!made) {
    made = (async () => {
      const campaignId = await f.t.given.campaign(accountId);
      // Port 9 (discard) refuses at once: the ping fails fast and is recorded.
      const { id: endpointId } = await f.t.given.endpoint(campaignId, 'http://127.0.0.1:9/hooks', [
        'lead.created',
      ]);
      const attempt = await f.t.app.get(DeliveryService).ping(endpointId);
      // RUN_WORKER is false: the delivery stays pending.
      const recorded = await f.t.app
        .get(WebhookEventPublisher)
        .publish(campaignId, [madeUpEvent('lead.created', { id: 1, campaign_id: campaignId })]);
      const { id: apiKeyId, key } = await f.t.given.apiKey(accountId);
      await f.t
        .http()
        .post('/api/v1/leads/upload')
        .set('Authorization', `Bearer ${await f.t.given.token(key)}`)
        .send(uploadBody(campaignId, [{ phone: '+14155550100', first_name: 'Ada' }]))
        .expect(202);
      const [{ id: leadId }] = await f.t.db.query(
        'SELECT id::int AS id FROM lead WHERE campaign_id = $1',
        [campaignId],
      );
      const [{ id: importId }] = await f.t.db.query(
        `INSERT INTO lead_import (id, campaign_id, api_key_id, source, tags, disclaimer_version,
                                  compliance_acknowledged_at, received_count, valid_count,
                                  invalid_count, duplicate_count)
         VALUES (gen_random_uuid(), $1, $2, 'api', '{}', 'v1.0', now(), 1, 0, 1, 0) RETURNING id`,
        [campaignId, apiKeyId],
      );
      await f.t.db.query(
        `INSERT INTO lead_import_rejection (import_id, row, field, message, submitted)
         VALUES ($1, 0, 'phone', 'phone is required', '{}')`,
        [importId],
      );
      const [{ id: spreadsheetImportId }] = await f.t.db.query(
        `INSERT INTO spreadsheet_import (id, campaign_id, user_id, file_name, format, size_bytes,
                                         part_count, headers, sample_rows, total_rows, status)
         VALUES (gen_random_uuid(), $1, $2, 'leads.csv', 'csv', 0, 0, '["phone"]',
                 '[["+14155550100"]]', 1, 'uploaded') RETURNING id`,
        [campaignId, f.admin.id],
      );
      return {
        importId,
        spreadsheetImportId,
        leadId,
        campaignId,
        endpointId,
        attemptId: attempt.id,
        deliveryId: recorded.deliveries[0].id,
        apiKeyId,
      };
    })();
    byAccount.set(accountId, made);
  }
  return made;
}

/** Path parameters naming `pick`'s resource of the caller's account (`mine`) or another's. */
const mine =
  (pick: (w: World) => Record<string, string | number>) =>
  async (f: Fixture): Promise<Record<string, string | number>> =>
    pick(await world(f, f.accountId));
const theirs =
  (pick: (w: World) => Record<string, string | number>) =>
  async (f: Fixture): Promise<Record<string, string | number>> =>
    pick(await world(f, f.otherAccountId));

const campaign = (w: World) => ({ campaign_id: w.campaignId });
const endpoint = (w: World) => ({ endpoint_id: w.endpointId });
const attempt = (w: World) => ({ attempt_id: w.attemptId });
const delivery = (w: World) => ({ delivery_id: w.deliveryId });
const apiKey = (w: World) => ({ id: w.apiKeyId });
const leadImport = (w: World) => ({ import_id: w.importId });
const lead = (w: World) => ({ lead_id: w.leadId });
const spreadsheet = (w: World) => ({ import_id: w.spreadsheetImportId });
/** A (finished: nothing had failed) bulk recovery of the account's endpoint. */
const recovery =
  (of: (f: Fixture) => Promise<Record<string, string | number>>) =>
  async (f: Fixture): Promise<Record<string, number>> => {
    const { endpoint_id } = await of(f);
    const { recovery } = await f.t.app
      .get(DeliveryRecoveries)
      .start(Number(endpoint_id), '2020-01-01T00:00:00Z');
    return { recovery_id: recovery.id };
  };

/** The account's endpoint, given a secret custom header `Authorization` to reveal. */
const withSecretHeader = async (f: Fixture): Promise<Record<string, number>> => {
  const w = await world(f, f.accountId);
  await f.t.app.get(WebhookEndpointAdmin).update(w.endpointId, {
    headers: [{ name: 'Authorization', value: 'Bearer access-test', secret: true }],
  });
  return endpoint(w);
};

/** The code every transformation of these checks saves: the request as it is. */
const IDENTITY_CODE = 'function handler(webhook) {\n  return webhook;\n}';

/**
 * An endpoint of the account's campaign kept for the transformation routes, with a
 * transformation in force: subscribed to a type nothing here records, so no delivery of the
 * shared endpoint's goes through its code. Made once per fixture and account.
 */
const transformationEndpoints = new WeakMap<Fixture, Map<number, Promise<number>>>();
const withTransformation =
  (pick: (f: Fixture) => number) =>
  async (f: Fixture): Promise<Record<string, number>> => {
    const accountId = pick(f);
    let byAccount = transformationEndpoints.get(f);
    if (!byAccount) transformationEndpoints.set(f, (byAccount = new Map()));
    let made = byAccount.get(accountId);
    if (!made) {
      made = (async () => {
        const w = await world(f, accountId);
        const { id } = await f.t.given.endpoint(w.campaignId, 'http://127.0.0.1:9/transformed', [
          'lead.status_changed',
        ]);
        await f.t.app.get(EndpointTransformations).save(id, IDENTITY_CODE);
        return id;
      })();
      byAccount.set(accountId, made);
    }
    return { endpoint_id: await made };
  };

/** An import id (UUID) that nothing has. */
const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
/** An id no resource has (but a valid one: a positive PostgreSQL `integer`). */
const MISSING_ID = 2_147_483_000;
/** A query parameter no dashboard route documents. */
const UNKNOWN_QUERY = 'unknown_param';
/** A cursor's text as the lists encode it (base64url of UTF-8, docs/security.md#cursors). */
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Every route under /dashboard/api/, by `METHOD /path` as Fastify knows it. */
const ROUTES: Record<string, RouteCase> = {
  'POST /dashboard/api/session': {
    access: 'sign-in',
    body: async ({ admin }) => ({ email: admin.email, password: admin.password }),
  },
  'GET /dashboard/api/session': { access: 'any' },
  'POST /dashboard/api/portal/exchange': {
    access: 'sign-in',
    body: async () => ({ link_id: MISSING_UUID, secret: `cpl_${'A'.repeat(43)}` }),
  },
  'GET /dashboard/api/account/portal-origins': { access: 'any' },
  'PUT /dashboard/api/account/portal-origins': {
    access: 'admin',
    body: async () => ({ origins: ['https://app.example.com'] }),
  },
  'DELETE /dashboard/api/session': { access: 'any' },
  'GET /dashboard/api/campaigns': { access: 'any' },
  'GET /dashboard/api/campaigns/:campaign_id/endpoints': {
    access: 'any',
    params: mine(campaign),
    foreign: theirs(campaign),
  },
  'GET /dashboard/api/campaigns/:campaign_id/stats': {
    access: 'any',
    params: mine(campaign),
    foreign: theirs(campaign),
    queries: { window: '7d' },
  },
  'POST /dashboard/api/campaigns/:campaign_id/endpoints': {
    access: 'admin',
    params: mine(campaign),
    body: async () => ({ url: 'https://hooks.example.com/new', events: ['lead.created'] }),
    foreign: theirs(campaign),
  },
  'POST /dashboard/api/campaigns/:campaign_id/filter-preview': {
    access: 'admin',
    params: mine(campaign),
    body: async () => ({ filter: 'data.source == "x"', events: ['lead.created'] }),
    foreign: theirs(campaign),
  },
  'GET /dashboard/api/endpoints/:endpoint_id': {
    access: 'any',
    params: mine(endpoint),
    foreign: theirs(endpoint),
  },
  'PATCH /dashboard/api/endpoints/:endpoint_id': {
    access: 'admin',
    params: mine(endpoint),
    body: async () => ({ description: 'changed', enabled: false }),
    foreign: theirs(endpoint),
  },
  'DELETE /dashboard/api/endpoints/:endpoint_id': {
    access: 'admin',
    params: mine(endpoint),
    foreign: theirs(endpoint),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/secret/reveal': {
    access: 'admin',
    params: mine(endpoint),
    foreign: theirs(endpoint),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/headers/reveal': {
    access: 'admin',
    params: withSecretHeader,
    body: async () => ({ name: 'Authorization' }),
    foreign: theirs(endpoint),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/secret/rotate': {
    access: 'admin',
    params: mine(endpoint),
    foreign: theirs(endpoint),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/signature-scheme': {
    access: 'admin',
    params: mine(endpoint),
    body: async () => ({ signature_scheme: 'asymmetric' }),
    foreign: theirs(endpoint),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/test': {
    access: 'admin',
    params: mine(endpoint),
    body: async () => ({ event_type: 'lead.created' }),
    foreign: theirs(endpoint),
  },
  'GET /dashboard/api/endpoints/:endpoint_id/attempts': {
    access: 'any',
    params: mine(endpoint),
    foreign: theirs(endpoint),
    queries: {
      outcome: 'failed',
      event_type: 'ping',
      from: '2020-01-01T00:00:00Z',
      to: '2100-01-01T00:00:00Z',
      limit: '10',
      cursor: encodeLogCursor({ attemptedAtUs: '9000000000000000', id: 1 }),
    },
  },
  'GET /dashboard/api/endpoints/:endpoint_id/stats': {
    access: 'any',
    params: mine(endpoint),
    foreign: theirs(endpoint),
    queries: { window: '24h' },
  },
  'GET /dashboard/api/endpoints/:endpoint_id/ledger': {
    access: 'any',
    params: mine(endpoint),
    foreign: theirs(endpoint),
    queries: { days: '7' },
  },
  'GET /dashboard/api/campaigns/:campaign_id/leads': {
    access: 'any',
    params: mine(campaign),
    query: '?q=ada',
    foreign: theirs(campaign),
    queries: {
      q: 'ada',
      field: 'name',
      limit: '5',
      cursor: encodeSearchCursor('name', { key: 'a', id: 1 }),
    },
  },
  'GET /dashboard/api/leads/:lead_id': {
    access: 'any',
    params: mine(lead),
    foreign: theirs(lead),
  },
  'GET /dashboard/api/leads/:lead_id/deliveries': {
    access: 'any',
    params: mine(lead),
    foreign: theirs(lead),
    queries: { limit: '5', cursor: encodeLogCursor({ attemptedAtUs: '9000000000000000', id: 1 }) },
  },
  'GET /dashboard/api/attempts/:attempt_id': {
    access: 'any',
    params: mine(attempt),
    foreign: theirs(attempt),
  },
  'POST /dashboard/api/deliveries/:delivery_id/redeliver': {
    access: 'admin',
    params: mine(delivery),
    foreign: theirs(delivery),
  },
  'GET /dashboard/api/campaigns/:campaign_id/imports': {
    access: 'any',
    params: mine(campaign),
    foreign: theirs(campaign),
    queries: { limit: '5', cursor: b64(`9000000000000000.${MISSING_UUID}`) },
  },
  'GET /dashboard/api/imports/:import_id': {
    access: 'any',
    params: mine(leadImport),
    foreign: theirs(leadImport),
  },
  'GET /dashboard/api/imports/:import_id/rejections': {
    access: 'any',
    params: mine(leadImport),
    foreign: theirs(leadImport),
    queries: { limit: '5', cursor: b64('r0') },
  },
  'GET /dashboard/api/imports/:import_id/rejections.csv': {
    access: 'any',
    params: mine(leadImport),
    foreign: theirs(leadImport),
  },
  'POST /dashboard/api/campaigns/:campaign_id/spreadsheet-imports': {
    access: 'admin',
    params: mine(campaign),
    foreign: theirs(campaign),
    queries: { file_name: 'leads.csv' },
    file: Buffer.from('phone,first_name\r\n+14155550100,Ada\r\n'),
  },
  'GET /dashboard/api/campaigns/:campaign_id/spreadsheet-imports': {
    access: 'any',
    params: mine(campaign),
    foreign: theirs(campaign),
  },
  'GET /dashboard/api/spreadsheet-imports/:import_id': {
    access: 'any',
    params: mine(spreadsheet),
    foreign: theirs(spreadsheet),
  },
  'POST /dashboard/api/spreadsheet-imports/:import_id/preview': {
    access: 'admin',
    params: mine(spreadsheet),
    body: async () => ({ mapping: { phone: 0 } }),
    foreign: theirs(spreadsheet),
  },
  'POST /dashboard/api/spreadsheet-imports/:import_id/start': {
    access: 'admin',
    params: mine(spreadsheet),
    body: async () => ({ mapping: { phone: 0 }, compliance_acknowledged: true }),
    foreign: theirs(spreadsheet),
  },
  'POST /dashboard/api/spreadsheet-imports/:import_id/cancel': {
    access: 'admin',
    params: mine(spreadsheet),
    foreign: theirs(spreadsheet),
  },
  'DELETE /dashboard/api/spreadsheet-imports/:import_id': {
    access: 'admin',
    params: mine(spreadsheet),
    foreign: theirs(spreadsheet),
  },
  'GET /dashboard/api/spreadsheet-imports/:import_id/rejections.csv': {
    access: 'any',
    params: mine(spreadsheet),
    foreign: theirs(spreadsheet),
  },
  'GET /dashboard/api/event-types': { access: 'any' },
  'GET /dashboard/api/account/notifications': { access: 'any' },
  'PUT /dashboard/api/account/notifications': {
    access: 'admin',
    body: async () => ({ url: 'https://ops.example.com/notify' }),
  },
  'GET /dashboard/api/api-keys': { access: 'any' },
  'POST /dashboard/api/api-keys': {
    access: 'admin',
    body: async () => ({ name: 'from the dashboard' }),
  },
  'POST /dashboard/api/api-keys/:id/revoke': {
    access: 'admin',
    params: mine(apiKey),
    foreign: theirs(apiKey),
  },
  'POST /dashboard/api/privacy/erasures': {
    access: 'admin',
    body: async () => ({ phone: '+14155550177', suppress: false }),
  },
  'GET /dashboard/api/privacy/erasures': { access: 'admin', queries: { limit: '5' } },
  'GET /dashboard/api/privacy/suppressions': { access: 'admin' },
  'POST /dashboard/api/privacy/suppressions': {
    access: 'admin',
    body: async () => ({ email: 'listed@example.com' }),
  },
  'POST /dashboard/api/privacy/suppressions/remove': {
    access: 'admin',
    body: async () => ({ email: 'listed@example.com' }),
  },
  'POST /dashboard/api/privacy/suppressions/import': {
    access: 'admin',
    queries: { region: 'US' },
    file: Buffer.from('phone\r\n(415) 555-0123\r\n'),
  },
  'GET /dashboard/api/audit-log': {
    access: 'any',
    queries: {
      limit: '5',
      cursor: encodeAuditCursor({ createdAtMicros: 9n * 10n ** 15n, id: 1 }),
      action: 'endpoint.update',
      user: 'ada@example.com',
    },
  },
  'GET /dashboard/api/endpoints/:endpoint_id/recovery/preview': {
    access: 'any',
    params: mine(endpoint),
    query: '?since=2020-01-01T00:00:00Z',
    foreign: theirs(endpoint),
    queries: { since: '2020-01-01T00:00:00Z' },
  },
  'GET /dashboard/api/endpoints/:endpoint_id/transformation': {
    access: 'any',
    params: withTransformation((f) => f.accountId),
    foreign: withTransformation((f) => f.otherAccountId),
  },
  'GET /dashboard/api/endpoints/:endpoint_id/transformation/code': {
    access: 'any',
    params: withTransformation((f) => f.accountId),
    foreign: withTransformation((f) => f.otherAccountId),
    queries: { version: '1' },
  },
  'PUT /dashboard/api/endpoints/:endpoint_id/transformation': {
    access: 'admin',
    params: withTransformation((f) => f.accountId),
    body: async () => ({ code: IDENTITY_CODE }),
    foreign: withTransformation((f) => f.otherAccountId),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/transformation/restore': {
    access: 'admin',
    params: withTransformation((f) => f.accountId),
    body: async () => ({ version: 1 }),
    foreign: withTransformation((f) => f.otherAccountId),
  },
  'DELETE /dashboard/api/endpoints/:endpoint_id/transformation': {
    access: 'admin',
    params: withTransformation((f) => f.accountId),
    foreign: withTransformation((f) => f.otherAccountId),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/transformation/run': {
    access: 'admin',
    params: withTransformation((f) => f.accountId),
    body: async () => ({ code: IDENTITY_CODE }),
    foreign: withTransformation((f) => f.otherAccountId),
  },
  'POST /dashboard/api/endpoints/:endpoint_id/recoveries': {
    access: 'admin',
    params: mine(endpoint),
    body: async () => ({ since: '2020-01-01T00:00:00Z' }),
    foreign: theirs(endpoint),
  },
  'GET /dashboard/api/endpoints/:endpoint_id/recoveries': {
    access: 'any',
    params: mine(endpoint),
    foreign: theirs(endpoint),
  },
  'POST /dashboard/api/recoveries/:recovery_id/cancel': {
    access: 'admin',
    params: recovery(mine(endpoint)),
    foreign: recovery(theirs(endpoint)),
  },
};

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('Dashboard API access rules, route by route (docs/dashboard.md#access-rules)', () => {
  let t: TestApp;
  let tables: string[];
  let doc: OpenAPIObject;
  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false', RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
    doc = (await t.http().get(DASHBOARD_OPENAPI_JSON_PATH).expect(200)).body as OpenAPIObject;
    tables = (
      (await t.db.query(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'typeorm_migrations'
          ORDER BY tablename`,
      )) as Array<{ tablename: string }>
    ).map((row) => row.tablename);
  });
  afterAll(() => t.close());

  /** A digest of every row of every table: equal before and after means nothing changed. */
  async function snapshot(): Promise<Record<string, string>> {
    const parts = tables.map(
      (table) =>
        `SELECT '${table}' AS name, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${table}" t`,
    );
    const rows: Array<{ name: string; digest: string }> = await t.db.query(
      parts.join(' UNION ALL '),
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.digest]));
  }

  /** The routes registered under /dashboard/api/, but HEAD (Fastify's twin of each GET) and the document. */
  function discovered() {
    return dashboardRoutes(t.app.getHttpAdapter().getInstance()).filter(
      (route) => route.method !== 'HEAD' && route.url !== DASHBOARD_OPENAPI_JSON_PATH,
    );
  }

  async function fixture(): Promise<Fixture> {
    const admin = await givenUser(t, 'admin');
    const viewer = await givenUser(t, 'viewer', admin.accountId);
    return {
      t,
      accountId: admin.accountId,
      admin,
      viewer,
      otherAccountId: await t.given.account(),
    };
  }

  /** The query parameters the OpenAPI document declares for `method` `url` (a Fastify pattern). */
  function documentedQueries(method: string, url: string): string[] {
    const template = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = (
      doc.paths[template] as
        Record<string, { parameters?: Array<{ in?: string; name: string }> }> | undefined
    )?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${template} is not in the dashboard's document`);
    return (operation.parameters ?? [])
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => parameter.name)
      .sort();
  }

  /** `target` with `name=value` added to its query string. */
  function withQuery(target: string, query: string): string {
    return `${target}${target.includes('?') ? '&' : '?'}${query}`;
  }

  function path(url: string, params: Record<string, string | number>): string {
    return url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => String(params[name] ?? 1));
  }

  /** A request of `method` to `url`, with a JSON body when the method has one. */
  function send(method: string, url: string, headers: Record<string, string>, body: unknown) {
    const req = t.http()[method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](url);
    req.set(headers);
    return ['POST', 'PUT', 'PATCH'].includes(method) ? req.send(body as object) : req;
  }

  it('lists every dashboard route in ROUTES, with the access it declares', () => {
    const routes = discovered();
    expect(routes.length).toBeGreaterThan(0);
    const declared = Object.fromEntries(
      routes.map((route) => [`${route.method} ${route.url}`, route.access]),
    );
    const expected = Object.fromEntries(
      Object.entries(ROUTES).map(([route, { access }]) => [route, access]),
    );
    expect(declared).toEqual(expected);
  });

  it('names in each row’s queries exactly the query parameters its OpenAPI operation declares', () => {
    const declared = Object.fromEntries(
      Object.keys(ROUTES).map((route) => {
        const [method, url] = route.split(' ');
        return [route, documentedQueries(method, url)];
      }),
    );
    const listed = Object.fromEntries(
      Object.entries(ROUTES).map(([route, { queries }]) => [
        route,
        Object.keys(queries ?? {}).sort(),
      ]),
    );
    expect(listed).toEqual(declared);
  });

  const cases = Object.entries(ROUTES).map(([route, spec]) => {
    const [method, url] = route.split(' ');
    return { route, method, url, spec };
  });

  describe.each(cases)('$route', ({ method, url, spec }) => {
    const stateChanging = STATE_CHANGING.has(method);

    async function request(f: Fixture) {
      return {
        target: path(url, spec.params ? await spec.params(f) : {}) + (spec.query ?? ''),
        body: spec.body ? await spec.body(f) : {},
      };
    }

    /** Headers that pass every access rule of the route: an admin's session and CSRF token. */
    async function allowed(f: Fixture): Promise<Record<string, string>> {
      if (spec.access === 'sign-in') return { 'X-CSRF-Token': 'sign-in' };
      const admin = await signIn(t, f.admin);
      return { Cookie: admin.cookie, 'X-CSRF-Token': admin.csrf };
    }

    it('refuses a query parameter it does not document (422 naming it), changing nothing', async () => {
      const f = await fixture();
      const { target, body } = await request(f);
      const headers = await allowed(f);
      const before = await snapshot();
      const res = await send(method, withQuery(target, `${UNKNOWN_QUERY}=1`), headers, body);
      expect({
        status: res.status,
        body: res.body,
        cacheControl: res.headers['cache-control'],
      }).toEqual({
        status: 422,
        body: { error: 'validation_failed', message: `${UNKNOWN_QUERY} is not a known field` },
        cacheControl: 'no-store', // docs/security.md#responses-never-stored
      });
      expect(await snapshot()).toEqual(before);
    });

    if (['POST', 'PUT', 'PATCH'].includes(method)) {
      it('refuses a JSON body holding a NUL character (422 naming where), changing nothing', async () => {
        const f = await fixture();
        const { target, body } = await request(f);
        const headers = await allowed(f);
        const before = await snapshot();
        const res = await send(method, target, headers, { ...(body as object), note: 'a\u0000b' });
        expect({ status: res.status, body: res.body }).toEqual({
          status: 422,
          body: { error: 'validation_failed', message: 'note must not contain a NUL character' },
        });
        expect(await snapshot()).toEqual(before);
      });
    }

    if (spec.queries) {
      const queries = spec.queries;
      it('refuses a documented query parameter whose value holds a NUL (422 naming it), changing nothing', async () => {
        const f = await fixture();
        const { target, body } = await request(f);
        const headers = await allowed(f);
        for (const name of Object.keys(queries)) {
          const before = await snapshot();
          const bare = target.split('?')[0];
          const res = await send(method, withQuery(bare, `${name}=a%00b`), headers, body);
          expect({ name, status: res.status, body: res.body }).toEqual({
            name,
            status: 422,
            body: {
              error: 'validation_failed',
              message: `${name} must not contain a NUL character`,
            },
          });
          expect(await snapshot()).toEqual(before);
        }
      });

      it('accepts the query parameters its OpenAPI operation declares, together (2xx)', async () => {
        const f = await fixture();
        const { target, body } = await request(f);
        const user = spec.access === 'any' ? f.viewer : f.admin;
        const session = await signIn(t, user);
        const headers = { Cookie: session.cookie, 'X-CSRF-Token': session.csrf };
        const query = new URLSearchParams(queries).toString();
        const url = withQuery(target.split('?')[0], query);
        const res = spec.file
          ? await t
              .http()
              .post(url)
              .set(headers)
              .set('Content-Type', 'application/octet-stream')
              .send(spec.file)
          : await send(method, url, headers, body);
        expect({ query, success: res.status >= 200 && res.status < 300, body: res.body }).toEqual({
          query,
          success: true,
          body: res.body,
        });
      });
    }

    if (spec.access === 'sign-in') {
      it('refuses a request without X-CSRF-Token: sign-in, or from another origin (403), changing nothing', async () => {
        const f = await fixture();
        const { target, body } = await request(f);
        const refused: Array<Record<string, string>> = [
          {},
          { 'X-CSRF-Token': 'wrong' },
          { 'X-CSRF-Token': 'sign-in', Origin: 'https://evil.example' },
          { 'X-CSRF-Token': 'sign-in', 'Sec-Fetch-Site': 'cross-site' },
        ];
        for (const headers of refused) {
          const before = await snapshot();
          const res = await send(method, target, headers, body);
          expect({ headers, status: res.status, error: res.body.error }).toEqual({
            headers,
            status: 403,
            error: 'forbidden',
          });
          expect(await snapshot()).toEqual(before);
        }
      });
      return;
    }

    it('refuses a request without a valid session (401), changing nothing', async () => {
      const f = await fixture();
      const { target, body } = await request(f);
      const signedOut = await signIn(t, f.admin);
      await t
        .http()
        .delete('/dashboard/api/session')
        .set({ Cookie: signedOut.cookie, 'X-CSRF-Token': signedOut.csrf })
        .expect(204);
      for (const cookie of [
        undefined,
        `${COOKIE}=not-a-session`,
        `${COOKIE}=${'A'.repeat(43)}`,
        signedOut.cookie,
      ]) {
        const headers: Record<string, string> = cookie ? { Cookie: cookie } : {};
        // A valid-looking CSRF header changes nothing: the session is checked first.
        if (stateChanging) headers['X-CSRF-Token'] = signedOut.csrf;
        const before = await snapshot();
        const res = await send(method, target, headers, body);
        expect({ cookie, status: res.status, error: res.body.error }).toEqual({
          cookie,
          status: 401,
          error: 'unauthorized',
        });
        expect(await snapshot()).toEqual(before);
      }
    });

    if (stateChanging) {
      it('refuses a change without the session’s X-CSRF-Token, or from another origin (403), changing nothing', async () => {
        const f = await fixture();
        const { target, body } = await request(f);
        const mine = await signIn(t, f.admin);
        const theirs = await signIn(t, f.viewer);
        const refused: Array<Record<string, string>> = [
          {},
          { 'X-CSRF-Token': '' },
          { 'X-CSRF-Token': 'sign-in' },
          { 'X-CSRF-Token': theirs.csrf },
          { 'X-CSRF-Token': mine.token },
          { 'X-CSRF-Token': mine.csrf, Origin: 'https://evil.example' },
          { 'X-CSRF-Token': mine.csrf, Origin: 'null' },
          { 'X-CSRF-Token': mine.csrf, 'Sec-Fetch-Site': 'cross-site' },
          { 'X-CSRF-Token': mine.csrf, 'Sec-Fetch-Site': 'same-site' },
        ];
        for (const headers of refused) {
          const before = await snapshot();
          const res = await send(method, target, { Cookie: mine.cookie, ...headers }, body);
          expect({ headers, status: res.status, error: res.body.error }).toEqual({
            headers,
            status: 403,
            error: 'forbidden',
          });
          expect(await snapshot()).toEqual(before);
        }
      });
    }

    if (spec.access === 'admin') {
      it('refuses a viewer (403), changing nothing', async () => {
        const f = await fixture();
        const { target, body } = await request(f);
        const viewer = await signIn(t, f.viewer);
        const before = await snapshot();
        const res = await send(
          method,
          target,
          { Cookie: viewer.cookie, 'X-CSRF-Token': viewer.csrf },
          body,
        );
        expect({ status: res.status, error: res.body.error }).toEqual({
          status: 403,
          error: 'forbidden',
        });
        expect(await snapshot()).toEqual(before);
      });
    } else {
      it('lets a viewer through the access rules', async () => {
        const f = await fixture();
        const { target, body } = await request(f);
        const viewer = await signIn(t, f.viewer);
        const res = await send(
          method,
          target,
          { Cookie: viewer.cookie, 'X-CSRF-Token': viewer.csrf },
          body,
        );
        expect([401, 403]).not.toContain(res.status);
        // Given ids of the viewer's own account, every route open to viewers answers them,
        // never to be stored by a cache (docs/security.md#responses-never-stored).
        expect({
          success: res.status >= 200 && res.status < 300,
          body: res.body,
          cacheControl: res.headers['cache-control'],
        }).toEqual({
          success: true,
          body: res.body,
          cacheControl: 'no-store',
        });
      });
    }

    if (spec.foreign) {
      const foreign = spec.foreign;
      it('answers 404 for a resource of another account, as for a missing one, changing nothing', async () => {
        const f = await fixture();
        const { body } = await request(f);
        // Made before the snapshot: only the requests themselves must change nothing.
        const theirs = await foreign(f);
        const missing = Object.fromEntries(
          Object.entries(theirs).map(([name, value]) => [
            name,
            typeof value === 'string' ? MISSING_UUID : MISSING_ID,
          ]),
        );
        const admin = await signIn(t, f.admin);
        const before = await snapshot();
        const headers = { Cookie: admin.cookie, 'X-CSRF-Token': admin.csrf };
        const res = await send(method, path(url, theirs), headers, body);
        expect({ status: res.status, error: res.body.error }).toEqual({
          status: 404,
          error: 'not_found',
        });
        // The same answer as for an id nothing has, but for the id the message names.
        const none = await send(method, path(url, missing), headers, body);
        const shape = (message: string) =>
          message.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, 'U').replace(/\d+/g, 'N');
        expect({
          status: none.status,
          body: { ...none.body, message: shape(none.body.message) },
        }).toEqual({
          status: 404,
          body: { error: 'not_found', message: shape(res.body.message) },
        });
        expect(await snapshot()).toEqual(before);
      });
    }
  });

  it('answers a DELETE labelled JSON but without a body by the access rules, not 400', async () => {
    const f = await fixture();
    const { endpointId } = await world(f, f.accountId);
    const viewer = await signIn(t, f.viewer);
    const before = await snapshot();
    const res = await t.http().delete(`/dashboard/api/endpoints/${endpointId}`).set({
      Cookie: viewer.cookie,
      'X-CSRF-Token': viewer.csrf,
      'Content-Type': 'application/json',
    });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: { error: 'forbidden', message: 'This needs the admin role; viewers may only read' },
    });
    expect(await snapshot()).toEqual(before);
  });
});
