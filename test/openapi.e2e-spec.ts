import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  ParameterObject,
  PathItemObject,
  RequestBodyObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { EVENT_SCHEMA_NAMES, eventOpenApiSchemas } from '../src/webhooks/event-schemas.constants';
import { EVENT_TYPES } from '../src/webhooks/event-types.constants';
import {
  buildOpenApiDocument,
  OPENAPI_LICENSE,
  OPENAPI_SERVER,
  serializeOpenApi,
} from '../src/openapi/openapi';
import { createPreviewApp } from '../src/app.factory';
import { loadConfig } from '../src/config/app-config';
import { expectToMatchOpenApi } from './support/openapi';
import { startTestApp, type TestApp, type Caller, uploadBody } from './support/test-app';

const TOKEN = '/api/v1/auth/api-key/token';
const UPLOAD = '/api/v1/leads/upload';
const ERASURE = '/api/v1/erasure-requests';
const ERASURE_RECEIPT = '/api/v1/erasure-requests/{id}';
const EVENTS = '/api/v1/webhooks/{campaign_id}/events';
const ENDPOINTS = '/api/v1/webhooks/{campaign_id}/endpoints';
const HEALTH = '/api/v1/webhooks/{campaign_id}/endpoints/{eid}/health';
const PORTAL = '/api/v1/portal/sessions';
const PORTAL_LINK = '/api/v1/portal/sessions/{id}';

describe('OpenAPI document (docs/operations.md)', () => {
  let t: TestApp;
  let doc: OpenAPIObject;
  let me: Caller;
  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    doc = buildOpenApiDocument(t.app);
    me = await t.given.caller();
  });
  afterAll(() => t.close());

  it('is committed as openapi.json and up to date (regenerate with `npm run openapi`)', () => {
    const committed = readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8');
    expect(committed).toBe(serializeOpenApi(doc));
  });

  it('is served at /api/docs-json, with Swagger UI at /api/docs', async () => {
    const json = await t.http().get('/api/docs-json').expect(200);
    expect(json.body).toEqual(JSON.parse(serializeOpenApi(doc)));
    const ui = await t.http().get('/api/docs').redirects(1).expect(200);
    expect(ui.text).toContain('swagger');
  });

  it('covers the whole /api/v1 surface with the bearer scheme and the spec field names', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        TOKEN,
        UPLOAD,
        ERASURE,
        ERASURE_RECEIPT,
        ENDPOINTS,
        HEALTH,
        EVENTS,
        PORTAL,
        PORTAL_LINK,
      ].sort(),
    );
    expect(doc.components?.securitySchemes?.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(doc.paths[UPLOAD].post?.security).toEqual([{ bearer: [] }]);
    const schemas = doc.components!.schemas as Record<
      string,
      { properties: Record<string, unknown> }
    >;
    expect(Object.keys(schemas.LeadUploadResponse.properties)).toEqual([
      'status',
      'import_id',
      'received_count',
      'valid_count',
      'invalid_count',
      'duplicate_count',
      'errors',
    ]);
    expect(Object.keys(schemas.LeadUploadError.properties)).toEqual([
      'row',
      'var_field',
      'message',
    ]);
    expect(Object.keys(schemas.WebhookEndpointHealth.properties)).toEqual([
      'endpoint_id',
      'url',
      'is_enabled',
      'total_deliveries',
      'successful_deliveries',
      'failed_deliveries',
      'success_rate',
      'last_delivery_at',
      'last_delivery_is_successful',
      'avg_duration_ms',
    ]);
    expect(Object.keys(schemas.ErrorResponse.properties)).toEqual(['error', 'message']);
  });

  it('states the security of every operation: none for the token exchange, bearer elsewhere', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const expected = path === TOKEN ? [] : [{ bearer: [] }];
        expect({ path, method, security: operation.security }).toEqual({
          path,
          method,
          security: expected,
        });
      }
    }
    // Stated, not left out: no security at the root for an operation to inherit.
    expect(doc.security).toBeUndefined();
    expect('security' in doc.paths[TOKEN].post!).toBe(true);
  });

  it('has a relative server, a licence matching package.json and described tags', () => {
    expect(doc.servers).toEqual([OPENAPI_SERVER]);
    expect(doc.servers![0].url).toBe('/');
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      license: string;
    };
    // Update OPENAPI_LICENSE when the package's licence changes.
    expect(pkg.license).toBe('UNLICENSED');
    expect(doc.info.license).toEqual(OPENAPI_LICENSE);
    const used = new Set(
      [...Object.values(doc.paths), ...Object.values(doc.webhooks ?? {})].flatMap((item) =>
        Object.values(item).flatMap((operation: { tags?: string[] }) => operation.tags ?? []),
      ),
    );
    const declared = doc.tags ?? [];
    expect(declared.map((tag) => tag.name).sort()).toEqual([...used].sort());
    for (const tag of declared) expect(tag.description).toEqual(expect.any(String));
  });

  it('is OpenAPI 3.1 with one webhook per event type and the ping, each body its payload schema', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
    expect(Object.keys(doc.webhooks ?? {})).toEqual([...EVENT_TYPES, 'ping']);
    const schemas = eventOpenApiSchemas();
    for (const type of EVENT_TYPES) {
      const post = (doc.webhooks![type] as PathItemObject).post!;
      const name = EVENT_SCHEMA_NAMES[type];
      const body = post.requestBody as RequestBodyObject;
      expect(body.required).toBe(true);
      expect(body.content['application/json'].schema).toEqual({
        $ref: `#/components/schemas/${name}`,
      });
      expect(doc.components!.schemas![name]).toEqual(schemas[name]);
      expect(post.parameters).toEqual([
        { $ref: '#/components/parameters/WebhookId' },
        { $ref: '#/components/parameters/WebhookTimestamp' },
        { $ref: '#/components/parameters/WebhookSignature' },
      ]);
      expect(Object.keys(post.responses)).toEqual(['2XX']);
      expect(post.security).toEqual([]);
    }
    expect(
      Object.values(doc.components!.parameters! as Record<string, ParameterObject>).map((p) => [
        p.name,
        p.in,
      ]),
    ).toEqual([
      ['webhook-id', 'header'],
      ['webhook-timestamp', 'header'],
      ['webhook-signature', 'header'],
    ]);
  });

  it('serves the same document as `npm run openapi` builds without PostgreSQL or Redis', async () => {
    const preview = await createPreviewApp(
      loadConfig({
        ...process.env,
        RUN_WORKER: 'false',
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nowhere',
        REDIS_URL: 'redis://127.0.0.1:1',
      }),
    );
    try {
      expect(serializeOpenApi(buildOpenApiDocument(preview))).toBe(serializeOpenApi(doc));
    } finally {
      await preview.close();
    }
  });

  describe('real responses match the document', () => {
    const bearer = () => `Bearer ${me.token}`;

    it('POST /auth/api-key/token: 200, 400, 401, 413, 415', async () => {
      const check = (res: import('supertest').Response) =>
        expectToMatchOpenApi(doc, 'post', TOKEN, res);
      check(await t.http().post(TOKEN).send({ api_key: me.apiKey }).expect(200));
      check(await t.http().post(TOKEN).send({}).expect(400));
      check(await t.http().post(TOKEN).send({ api_key: 'capi_nope' }).expect(401));
      check(
        await t
          .http()
          .post(TOKEN)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ api_key: 'x'.repeat(17 * 1024 * 1024) }))
          .expect(413),
      );
      check(await t.http().post(TOKEN).set('Content-Type', 'text/plain').send('x').expect(415));
    });

    it('POST /leads/upload: 202, 400, 401, 403, 409, 422', async () => {
      const check = (res: import('supertest').Response) =>
        expectToMatchOpenApi(doc, 'post', UPLOAD, res);
      const post = (body: object, key?: string) => {
        const req = t.http().post(UPLOAD).set('Authorization', bearer());
        if (key) req.set('Idempotency-Key', key);
        return req.send(body);
      };
      check(
        await post(
          uploadBody(me.campaignId, [{ phone: '+14155550100' }, { phone: 'bad' }, {}]),
          'doc',
        ).expect(202),
      );
      check(await post(uploadBody(me.campaignId, [{ phone: '+14155550100' }]), 'doc').expect(409));
      check(await post({ campaign_id: 'x' }).expect(400));
      check(await post({ campaign_id: me.campaignId }).expect(400));
      check(await t.http().post(UPLOAD).send(uploadBody(me.campaignId, [])).expect(401));
      check(await post(uploadBody(2_147_483_000, [{ phone: '+14155550100' }])).expect(403));
      check(await post(uploadBody(me.campaignId, [])).expect(422));
    });

    it('GET webhook reads: 200, 400, 401, 403, 404', async () => {
      const { id } = await t.given.endpoint(
        me.campaignId,
        'https://example.com/doc',
        ['lead.created'],
        { description: 'doc' },
      );
      const get = (path: string, auth = true) => {
        const req = t.http().get(path);
        return auth ? req.set('Authorization', bearer()) : req;
      };
      expectToMatchOpenApi(
        doc,
        'get',
        EVENTS,
        await get(`/api/v1/webhooks/${me.campaignId}/events`).expect(200),
      );
      expectToMatchOpenApi(
        doc,
        'get',
        EVENTS,
        await get('/api/v1/webhooks/abc/events').expect(400),
      );
      expectToMatchOpenApi(
        doc,
        'get',
        EVENTS,
        await get(`/api/v1/webhooks/${me.campaignId}/events`, false).expect(401),
      );
      expectToMatchOpenApi(
        doc,
        'get',
        ENDPOINTS,
        await get(`/api/v1/webhooks/${me.campaignId}/endpoints`).expect(200),
      );
      expectToMatchOpenApi(
        doc,
        'get',
        ENDPOINTS,
        await get('/api/v1/webhooks/2147483000/endpoints').expect(403),
      );
      expectToMatchOpenApi(
        doc,
        'get',
        HEALTH,
        await get(`/api/v1/webhooks/${me.campaignId}/endpoints/${id}/health`).expect(200),
      );
      expectToMatchOpenApi(
        doc,
        'get',
        HEALTH,
        await get(`/api/v1/webhooks/${me.campaignId}/endpoints/2147483000/health`).expect(404),
      );
      await t.db.query(
        `UPDATE webhook_endpoint SET total_deliveries = 2, successful_deliveries = 1, failed_deliveries = 1, total_duration_ms = 30.5,
                last_delivery_at = now(), last_delivery_is_successful = false WHERE id = $1`,
        [id],
      );
      const health = await get(`/api/v1/webhooks/${me.campaignId}/endpoints/${id}/health`).expect(
        200,
      );
      expectToMatchOpenApi(doc, 'get', HEALTH, health);
      expect(health.body).toMatchObject({
        success_rate: 0.5,
        avg_duration_ms: 15.25,
        last_delivery_is_successful: false,
      });
    });

    it('rejects a body with an undocumented field (the check can fail)', async () => {
      const res = await t
        .http()
        .get(`/api/v1/webhooks/${me.campaignId}/events`)
        .set('Authorization', bearer())
        .expect(200);
      const forged = {
        ...res,
        status: 404,
        body: { error: 'not_found', message: 'x', stack: 'at …' },
      } as typeof res;
      expect(() => expectToMatchOpenApi(doc, 'get', HEALTH, forged)).toThrow(/does not match/);
    });
  });
});
