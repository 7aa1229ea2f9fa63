/**
 * The worked example of docs/webhooks.md#transformations, end to end:
 * `examples/hubspot-transformation.js` on an endpoint set up as the docs say (HubSpot's contacts
 * URL, the private app's token in a secret `Authorization` header, throttled to HubSpot's
 * private-app limit of 100 requests per 10 s) against a local receiver standing in for
 * `api.hubapi.com`, which holds every request to HubSpot's documented CRM v3 "create a contact"
 * shape. Leads go in through the public upload API.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { CLI_ACTOR } from '../src/audit/audit-log.service';
import { EndpointTransformations } from '../src/webhooks';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';

const EXAMPLE = readFileSync(
  join(__dirname, '..', 'examples', 'hubspot-transformation.js'),
  'utf8',
);
const CONTACTS_PATH = '/crm/v3/objects/contacts';
const TOKEN = 'pat-na1-11111111-2222-3333-4444-555555555555';
/** HubSpot's contact properties, as its CRM v3 API names them. */
const HUBSPOT_PROPERTIES = ['email', 'firstname', 'lastname', 'phone', 'company', 'jobtitle'];

interface HubSpotRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stand-in for api.hubapi.com: records each request, answers 201 as HubSpot does. */
class FakeHubSpot {
  readonly requests: HubSpotRequest[] = [];
  private server?: Server;

  get origin(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.requests.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.statusCode = 201;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: String(this.requests.length), properties: {} }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

describe('The HubSpot transformation example (docs/webhooks.md#worked-example-hubspot-contacts)', () => {
  let t: TestApp;
  let hubspot: FakeHubSpot;

  beforeAll(async () => {
    t = await startTestApp();
    hubspot = await new FakeHubSpot().start();
  });
  afterAll(async () => {
    await t.close();
    await hubspot.stop();
  });

  /** The endpoint as docs/webhooks.md sets it up, with the example saved as its version 1. */
  async function hubspotEndpoint(caller: Caller): Promise<{ id: number; secret: string }> {
    const { endpoint, secret } = await t.app.get(WebhookEndpointAdmin).create(
      caller.campaignId,
      {
        url: `${hubspot.origin}${CONTACTS_PATH}`,
        // leads.bulk_created too: the example skips it (returns null).
        events: ['lead.created', 'leads.bulk_created'],
        description: 'HubSpot contacts',
        enabled: true,
        headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}`, secret: true }],
        // HubSpot's private-app burst limit on Free and Starter: 100 requests per 10 s.
        maxDeliveriesPerSecond: 10,
      },
      CLI_ACTOR,
    );
    const state = await t.app.get(EndpointTransformations).save(endpoint.id, EXAMPLE, CLI_ACTOR);
    expect(state.current).toMatchObject({ version: 1, created_by: 'cli', code: EXAMPLE });
    return { id: endpoint.id, secret: secret! };
  }

  it('creates one HubSpot contact per lead, exactly as HubSpot documents the request, and skips the other events', async () => {
    const caller = await t.given.caller();
    const { id, secret } = await hubspotEndpoint(caller);
    const leads = [
      {
        phone: '+14155550101',
        first_name: 'Alva',
        last_name: 'Treutel',
        email: 'alva.treutel@example.com',
        company: 'Howe, Konopelski and Wyman',
        title: 'Operations Manager',
      },
      // Only a phone and a first name: the null fields are left out, not sent empty.
      { phone: '+14155550102', first_name: 'Bob' },
      { phone: '+14155550103', email: 'carol@example.com', company: 'Acme "Realty" & Co' },
    ];
    const expected = [
      {
        email: 'alva.treutel@example.com',
        firstname: 'Alva',
        lastname: 'Treutel',
        phone: '+14155550101',
        company: 'Howe, Konopelski and Wyman',
        jobtitle: 'Operations Manager',
      },
      { firstname: 'Bob', phone: '+14155550102' },
      { email: 'carol@example.com', phone: '+14155550103', company: 'Acme "Realty" & Co' },
    ];
    const res = await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, leads));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ valid_count: 3 });

    await eventually(async () => expect(hubspot.requests).toHaveLength(3), 20_000);
    const verifier = new Webhook(secret);
    const bodies: unknown[] = [];
    for (const request of hubspot.requests) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe(CONTACTS_PATH);
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(request.headers['content-type']).toBe('application/json');
      // The body signed is the body received, byte for byte.
      verifier.verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      });
      const body = JSON.parse(request.body) as { properties: Record<string, unknown> };
      expect(Object.keys(body)).toEqual(['properties']);
      for (const [name, value] of Object.entries(body.properties)) {
        expect(HUBSPOT_PROPERTIES).toContain(name);
        expect(typeof value).toBe('string');
      }
      bodies.push(body);
    }
    expect(bodies).toEqual(expect.arrayContaining(expected.map((properties) => ({ properties }))));
    expect(bodies).toHaveLength(expected.length);

    // The deliveries: three lead.created succeeded, the bulk summary skipped by the code.
    await eventually(async () => {
      const deliveries = await t.db.query(
        `SELECT e.type, d.status, d.status_reason, d.attempt_count
           FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
          WHERE d.endpoint_id = $1 ORDER BY d.id`,
        [id],
      );
      expect(deliveries).toEqual([
        ...expected.map(() => ({
          type: 'lead.created',
          status: 'succeeded',
          status_reason: null,
          attempt_count: 1,
        })),
        {
          type: 'leads.bulk_created',
          status: 'skipped',
          status_reason: 'transformation',
          attempt_count: 0,
        },
      ]);
    });
    // One attempt per contact, each recording version 1, the request as sent and no secret.
    const attempts = await t.db.query(
      `SELECT transformation_version, request_method, request_url, request_headers, request_body,
              status_code, success, event_type
         FROM webhook_delivery_attempt WHERE endpoint_id = $1 ORDER BY attempted_at`,
      [id],
    );
    expect(attempts).toHaveLength(3);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({
        transformation_version: 1,
        // POST, the method of every request not changed: recorded as null.
        request_method: null,
        request_url: `${hubspot.origin}${CONTACTS_PATH}`,
        status_code: 201,
        success: true,
        event_type: 'lead.created',
      });
      expect(hubspot.requests.map((r) => r.body)).toContain(attempt.request_body);
      expect(JSON.stringify(attempt.request_headers)).not.toContain(TOKEN);
    }
  });

  it('saves the example as a version the audit log records without its code', async () => {
    const caller = await t.given.caller();
    const { id } = await hubspotEndpoint(caller);
    const [row] = await t.db.query(
      'SELECT transformation, transformation_version FROM webhook_endpoint WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ transformation: EXAMPLE, transformation_version: 1 });
    const entries = await t.db.query(
      `SELECT action, actor_type, details FROM audit_log_entry
        WHERE object_type = 'endpoint' AND object_id = $1 AND action LIKE 'transformation.%'`,
      [String(id)],
    );
    expect(entries).toEqual([
      {
        action: 'transformation.save',
        actor_type: 'cli',
        details: {
          version: 1,
          previous_version: null,
          bytes: Buffer.byteLength(EXAMPLE),
        },
      },
    ]);
  });
});
