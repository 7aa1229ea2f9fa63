import { CLI_ACTOR, type AuditActor } from '../src/audit/audit-log.service';
import { CampaignsService } from '../src/campaigns/campaigns.service';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';
import { givenUser } from './support/dashboard';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * A change and its audit entry are one transaction (docs/architecture.md#who-writes-the-audit-log):
 * when the entry cannot be written, the change is not there either. A trigger refuses the
 * entries this file marks, as a full disk or a lost connection would.
 */
describe('Audited changes commit or roll back with their entry', () => {
  let t: TestApp;
  const REFUSED = 'audit-refused';

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    await t.db.query(`
      CREATE FUNCTION refuse_marked_audit_entry() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit entry refused by the test';
      END $$;
      CREATE TRIGGER refuse_marked_audit_entry BEFORE INSERT ON audit_log_entry
        FOR EACH ROW WHEN (NEW.details::text LIKE '%${REFUSED}%')
        EXECUTE FUNCTION refuse_marked_audit_entry();`);
  });
  afterAll(() => t.close());

  const entries = async (action: string, objectId: number) =>
    t.db.query<{ actor_type: string; account_id: number; details: Record<string, unknown> }>(
      `SELECT actor_type, account_id, details FROM audit_log_entry
        WHERE action = $1 AND object_id = $2`,
      [action, String(objectId)],
    );

  it('a campaign created by the CLI is stored with its entry, or not at all', async () => {
    const accountId = await t.given.account();
    const campaigns = t.app.get(CampaignsService);

    const created = await campaigns.createCampaign(accountId, 'Spring', 'GB', CLI_ACTOR);
    expect(await entries('campaign.create', created.id)).toEqual([
      {
        actor_type: 'cli',
        account_id: accountId,
        details: { name: 'Spring', default_region: 'GB' },
      },
    ]);

    await expect(campaigns.createCampaign(accountId, REFUSED, 'GB', CLI_ACTOR)).rejects.toThrow(
      'audit entry refused by the test',
    );
    const stored = await t.db.query('SELECT id FROM campaign WHERE name = $1', [REFUSED]);
    expect(stored).toEqual([]);
  });

  it('an endpoint change or delete by a dashboard user is undone when its entry cannot be written', async () => {
    const user = await givenUser(t);
    const campaignId = await t.given.campaign(user.accountId);
    // Set up without an actor: nothing recorded, so the trigger does not refuse it.
    const url = `https://hooks.example.com/${REFUSED}`;
    const { id } = await t.given.endpoint(campaignId, url, ['lead.created']);
    const admin: AuditActor = {
      type: 'user',
      accountId: user.accountId,
      userId: user.id,
      email: user.email,
      ip: '127.0.0.1',
    };
    const endpoints = t.app.get(WebhookEndpointAdmin);
    const endpointRow = async () =>
      t.db.query('SELECT description, is_enabled FROM webhook_endpoint WHERE id = $1', [id]);

    // `{changes: {description}}` names the marker: refused, and the update with it.
    await expect(
      endpoints.update(id, { description: REFUSED, enabled: false }, admin),
    ).rejects.toThrow('audit entry refused by the test');
    expect(await endpointRow()).toEqual([{ description: null, is_enabled: true }]);

    // A dashboard user's delete names the URL: refused, and the endpoint is still there.
    await expect(endpoints.delete(id, admin)).rejects.toThrow('audit entry refused by the test');
    expect(await endpointRow()).toHaveLength(1);

    // An accepted change and its entry are both there.
    await endpoints.update(id, { description: 'CRM' }, admin);
    expect(await endpointRow()).toEqual([{ description: 'CRM', is_enabled: true }]);
    expect(await entries('endpoint.update', id)).toEqual([
      {
        actor_type: 'user',
        account_id: user.accountId,
        details: { changes: { description: 'CRM' } },
      },
    ]);
    expect(await entries('endpoint.delete', id)).toEqual([]);
  });
});
