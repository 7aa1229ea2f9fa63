import type { AddressInfo } from 'node:net';
import { CampaignApiClient, CampaignApiError } from '../packages/client/src';
import { startTestApp, type Caller, type TestApp } from './support/test-app';

/** The typed client (packages/client, docs/client.md) against the real service on a port. */
describe('CampaignApiClient against the real service', () => {
  let t: TestApp;
  let me: Caller;
  let client: CampaignApiClient;

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    await t.app.listen(0, '127.0.0.1');
    me = await t.given.caller();
    client = new CampaignApiClient({ baseUrl: baseUrlOf(t), apiKey: me.apiKey });
  });
  afterAll(() => t.close());

  it('exchanges the key and reads the webhook surface', async () => {
    await expect(client.listEventTypes(me.campaignId)).resolves.toContain('lead.created');
    await expect(client.listEndpoints(me.campaignId)).resolves.toEqual([]);
  });

  it('uploads, and replays the same batch under the same key without storing it twice', async () => {
    const body = {
      campaign_id: me.campaignId,
      compliance_acknowledged: true as const,
      leads: [{ phone: '(212) 374-4203', first_name: 'Ada' }, { phone: '12345' }],
    };
    const first = await client.uploadLeads(body, { idempotencyKey: 'client-e2e-1' });
    expect(first.replayed).toBe(false);
    expect(first.report).toMatchObject({
      received_count: 2,
      valid_count: 1,
      invalid_count: 1,
      errors: [{ row: 1, var_field: 'phone', message: 'phone is not a valid phone number' }],
    });
    const again = await client.uploadLeads(body, { idempotencyKey: 'client-e2e-1' });
    expect(again).toEqual({ ...first, replayed: true });
    const [{ n }] = (await t.db.query(
      'SELECT count(*)::int AS n FROM lead_import WHERE campaign_id = $1',
      [me.campaignId],
    )) as { n: number }[];
    expect(n).toBe(1);
  });

  it('throws typed errors with the envelope code', async () => {
    const other = await t.given.campaign(await t.given.account());
    const forbidden = (await client
      .uploadLeads({
        campaign_id: other,
        compliance_acknowledged: true,
        leads: [{ phone: '+12123744203' }],
      })
      .catch((e: unknown) => e)) as CampaignApiError;
    expect(forbidden).toBeInstanceOf(CampaignApiError);
    expect(forbidden).toMatchObject({ status: 403, error: 'forbidden', attempts: 1 });
    expect(forbidden.requestId).toEqual(expect.any(String));

    const invalid = client.uploadLeads({
      campaign_id: me.campaignId,
      compliance_acknowledged: true,
      leads: [{ phone: '+12123744203' }],
      tags: [''],
    });
    await expect(invalid).rejects.toMatchObject({ status: 422, error: 'validation_failed' });

    const revoked = new CampaignApiClient({ baseUrl: baseUrlOf(t), apiKey: 'capi_nope' });
    await expect(revoked.listEventTypes(me.campaignId)).rejects.toMatchObject({
      status: 401,
      error: 'unauthorized',
    });
  });
});

function baseUrlOf(t: TestApp): string {
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}
