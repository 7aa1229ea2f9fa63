import { WebhookEventPublisher } from '../src/delivery/outbox';
import { givenUser, signIn } from './support/dashboard';
import { madeUpEvent } from './support/events';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';
import { WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

const API = '/dashboard/api';
const UPLOAD = '/api/v1/leads/upload';

interface Delivered {
  type: string;
  leadId: number;
  status?: string;
  answeredOk: boolean;
}

/** What a receiver got, in arrival order: each body's type, lead and whether it was answered 2xx. */
function deliveredOf(received: ReceivedWebhook[], ok: (index: number) => boolean): Delivered[] {
  return received.map((w, i) => {
    const body = JSON.parse(w.body) as { type: string; data: Record<string, unknown> };
    return {
      type: body.type,
      leadId: Number(body.type === 'lead.created' ? body.data.id : body.data.lead_id),
      status: body.data.status as string | undefined,
      answeredOk: ok(i),
    };
  });
}

/**
 * Per-lead ordering (docs/webhooks.md#per-lead-ordering): on an endpoint with `ordering =
 * 'per_lead'`, a lead's deliveries go one after another in the order their events were
 * recorded, a failing one (with its retries) holding back only its own lead.
 */
describe('Per-lead ordering', () => {
  let t: TestApp;
  let publisher: WebhookEventPublisher;
  const ordered = new WebhookReceiver();
  const unordered = new WebhookReceiver();

  beforeAll(async () => {
    await Promise.all([ordered.start(), unordered.start()]);
    t = await startTestApp({
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
    });
    publisher = t.app.get(WebhookEventPublisher);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([ordered.stop(), unordered.stop()]);
  });

  async function orderedEndpoint(caller: Caller, url: string): Promise<number> {
    const { id } = await t.given.endpoint(caller.campaignId, url, [
      'lead.created',
      'lead.status_changed',
    ]);
    await t.db.query(`UPDATE webhook_endpoint SET ordering = 'per_lead' WHERE id = $1`, [id]);
    return id;
  }

  async function uploadLeads(caller: Caller, phones: string[]): Promise<number[]> {
    const res = await t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${caller.token}`)
      .send(
        uploadBody(
          caller.campaignId,
          phones.map((phone) => ({ phone })),
        ),
      )
      .expect(202);
    const rows: Array<{ id: string }> = await t.db.query(
      'SELECT id FROM lead WHERE import_id = $1 ORDER BY id',
      [res.body.import_id],
    );
    return rows.map((row) => Number(row.id));
  }

  function statusChanged(caller: Caller, leadId: number, status: string) {
    return madeUpEvent('lead.status_changed', {
      lead_id: leadId,
      campaign_id: caller.campaignId,
      previous_status: null,
      status,
      changed_at: new Date().toISOString(),
    });
  }

  it("retries a lead's failing delivery before anything after it, while the other lead goes on", async () => {
    const caller = await t.given.caller();
    const orderedId = await orderedEndpoint(caller, ordered.url);
    await t.given.endpoint(caller.campaignId, unordered.url, [
      'lead.created',
      'lead.status_changed',
    ]);
    // The slow lead's lead.created (phone …0101) fails twice, then succeeds; all else succeeds.
    const SLOW_PHONE = '+14155550101';
    const isSlowCreated = (w: ReceivedWebhook) => {
      const body = JSON.parse(w.body) as { type: string; data: { phone?: string } };
      return body.type === 'lead.created' && body.data.phone === SLOW_PHONE;
    };
    let slowFailures = 0;
    const okAnswers: boolean[] = [];
    ordered.behaviour = (index) => {
      const fail = isSlowCreated(ordered.received[index]) && slowFailures < 2;
      if (fail) slowFailures += 1;
      okAnswers[index] = !fail;
      return { status: fail ? 500 : 204 };
    };
    unordered.behaviour = (index) => ({
      status: isSlowCreated(unordered.received[index]) ? 500 : 204,
    });
    const before = ordered.received.length;
    const beforeUnordered = unordered.received.length;
    const [slow, fast] = await uploadLeads(caller, [SLOW_PHONE, '+14155550102']);
    await publisher.publish(caller.campaignId, [
      statusChanged(caller, slow, 'contacted'),
      statusChanged(caller, fast, 'contacted'),
    ]);
    await publisher.publish(caller.campaignId, [
      statusChanged(caller, slow, 'qualified'),
      statusChanged(caller, fast, 'qualified'),
    ]);

    // While the slow lead's lead.created waits on its retry, its two later deliveries are held
    // behind the delivery before each: the log can name what holds each.
    await eventually(async () => {
      const held: Array<{ held_by: string | null; status: string; next_attempt_at: Date | null }> =
        await t.db.query(
          `SELECT d.held_by, d.status, d.next_attempt_at FROM webhook_delivery d
             JOIN webhook_event e ON e.id = d.event_id
            WHERE d.endpoint_id = $1 AND e.lead_id = $2 AND e.type = 'lead.status_changed'
            ORDER BY d.id`,
          [orderedId, slow],
        );
      expect(held).toHaveLength(2);
      expect(held.every((h) => h.held_by !== null && h.next_attempt_at === null)).toBe(true);
    });

    // Six deliveries reach the ordered receiver, answered 2xx: first the fast lead's, then the
    // slow lead's once its lead.created got through.
    await eventually(async () => {
      expect(okAnswers.slice(before).filter(Boolean)).toHaveLength(6);
    }, 15_000);
    const delivered = deliveredOf(ordered.received.slice(before), (i) => okAnswers[before + i]);
    const okOf = (lead: number) =>
      delivered.filter((d) => d.leadId === lead && d.answeredOk).map((d) => d.status ?? d.type);
    expect(okOf(slow)).toEqual(['lead.created', 'contacted', 'qualified']);
    expect(okOf(fast)).toEqual(['lead.created', 'contacted', 'qualified']);
    // Nothing of the slow lead after its lead.created reached the receiver before it succeeded.
    const firstSlowOk = delivered.findIndex((d) => d.leadId === slow && d.answeredOk);
    expect(delivered.slice(0, firstSlowOk).filter((d) => d.leadId === slow)).toEqual([
      expect.objectContaining({ type: 'lead.created', answeredOk: false }),
      expect.objectContaining({ type: 'lead.created', answeredOk: false }),
    ]);
    // The fast lead did not wait: all its deliveries got through before the slow lead's first.
    expect(delivered.findIndex((d) => d.leadId === fast && d.status === 'qualified')).toBeLessThan(
      firstSlowOk,
    );
    // The last answer is recorded a moment after the receiver gave it.
    await eventually(async () => {
      const rows: Array<{ status: string; held_by: string | null; lead_id: string | null }> =
        await t.db.query(
          'SELECT status, held_by, lead_id FROM webhook_delivery WHERE endpoint_id = $1',
          [orderedId],
        );
      expect(rows).toHaveLength(6);
      expect(rows.every((r) => r.status === 'succeeded' && r.held_by === null)).toBe(true);
      expect(new Set(rows.map((r) => Number(r.lead_id)))).toEqual(new Set([slow, fast]));
    });

    // The unordered endpoint holds nothing back: the slow lead's status changes arrived while
    // its lead.created still failed, and its deliveries carry no lead.
    await unordered.waitFor(beforeUnordered + 5, 10_000);
    const plain = deliveredOf(unordered.received.slice(beforeUnordered), () => true);
    expect(plain.filter((d) => d.leadId === slow && d.type === 'lead.status_changed')).toHaveLength(
      2,
    );
    const [{ with_lead }] = await t.db.query(
      `SELECT count(*)::int AS with_lead FROM webhook_delivery d
         JOIN webhook_endpoint w ON w.id = d.endpoint_id
        WHERE w.campaign_id = $1 AND w.ordering = 'none' AND d.lead_id IS NOT NULL`,
      [caller.campaignId],
    );
    expect(with_lead).toBe(0);
  });

  it("keeps a lead's events recorded in two transactions in commit order, the second waiting for the first", async () => {
    const caller = await t.given.caller();
    const orderedId = await orderedEndpoint(caller, ordered.url);
    ordered.behaviour = { status: 204 };
    const [lead] = await uploadLeads(caller, ['+14155550111']);
    await ordered.waitFor(ordered.received.length, 100);

    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
    // The first transaction records its event, then stays open.
    const first = t.db.transaction(async (manager) => {
      await publisher.record(manager, caller.campaignId, [statusChanged(caller, lead, 'first')]);
      await firstMayCommit;
    });
    await eventually(async () => {
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted`,
      );
      expect(n).toBeGreaterThan(0);
    });
    // The second waits until the first commits.
    let secondDone = false;
    const second = publisher
      .publish(caller.campaignId, [statusChanged(caller, lead, 'second')])
      .then(() => (secondDone = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secondDone).toBe(false);
    releaseFirst();
    await first;
    await second;

    const rows: Array<{ id: string; status: string }> = await t.db.query(
      `SELECT d.id, e.body::json->'data'->>'status' AS status FROM webhook_delivery d
         JOIN webhook_event e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 AND e.type = 'lead.status_changed' ORDER BY d.id`,
      [orderedId],
    );
    expect(rows.map((r) => r.status)).toEqual(['first', 'second']);
  });

  it("after a switch to per_lead, a lead's events recorded from then on go in order while one queued before the switch still fails", async () => {
    // docs/webhooks.md#per-lead-ordering: a change of `ordering` applies to deliveries of events
    // recorded from then on. The lead's lead.created, queued before the switch, keeps failing
    // (it is in no order); its two status changes, recorded after, go one after the other, the
    // second waiting for the first's retry.
    const caller = await t.given.caller();
    const { id: endpointId } = await t.given.endpoint(caller.campaignId, ordered.url, [
      'lead.created',
      'lead.status_changed',
    ]);
    const PHONE = '+14155550121';
    const before = ordered.received.length;
    let createdFailures = 0;
    let contactedFailures = 0;
    const okAnswers: boolean[] = [];
    ordered.behaviour = (index) => {
      const body = JSON.parse(ordered.received[index].body) as {
        type: string;
        data: { phone?: string; status?: string };
      };
      // lead.created fails three times (retries 1 s apart), "contacted" once; all else succeeds.
      let fail = false;
      if (body.type === 'lead.created' && body.data.phone === PHONE && createdFailures < 3) {
        fail = true;
        createdFailures += 1;
      } else if (body.data.status === 'contacted' && contactedFailures < 1) {
        fail = true;
        contactedFailures += 1;
      }
      okAnswers[index] = !fail;
      return { status: fail ? 500 : 204 };
    };
    const [lead] = await uploadLeads(caller, [PHONE]);
    await eventually(async () => expect(createdFailures).toBe(1));
    await t.db.query(`UPDATE webhook_endpoint SET ordering = 'per_lead' WHERE id = $1`, [
      endpointId,
    ]);
    await publisher.publish(caller.campaignId, [statusChanged(caller, lead, 'contacted')]);
    await publisher.publish(caller.campaignId, [statusChanged(caller, lead, 'qualified')]);

    // What this lead's endpoint got (other tests' endpoints share the receiver).
    const ofLead = () =>
      deliveredOf(ordered.received.slice(before), (i) => okAnswers[before + i] ?? true).filter(
        (d) => d.leadId === lead,
      );
    await eventually(async () => {
      expect(ofLead().filter((d) => d.answeredOk)).toHaveLength(3);
    }, 15_000);
    const statuses = ofLead()
      .filter((d) => d.type === 'lead.status_changed')
      .map((d) => `${d.status} ${d.answeredOk ? 'ok' : 'failed'}`);
    expect(statuses).toEqual(['contacted failed', 'contacted ok', 'qualified ok']);
    const rows: Array<{ type: string; lead_id: string | null }> = await t.db.query(
      `SELECT e.type, d.lead_id FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 ORDER BY d.id`,
      [endpointId],
    );
    // Only the deliveries recorded after the switch carry the lead.
    expect(rows.map((r) => [r.type, r.lead_id === null ? null : Number(r.lead_id)])).toEqual([
      ['lead.created', null],
      ['lead.status_changed', lead],
      ['lead.status_changed', lead],
    ]);
  });

  it('sets ordering through the dashboard, refuses anything but none or per_lead, and audits the change', async () => {
    const caller = await t.given.caller();
    const admin = await givenUser(t, 'admin', caller.accountId);
    const session = await signIn(t, admin);
    const { id } = await t.given.endpoint(caller.campaignId, ordered.url, ['lead.created']);
    const patch = (body: object) =>
      t
        .http()
        .patch(`${API}/endpoints/${id}`)
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf)
        .send(body);

    const bad = await patch({ ordering: 'sideways' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      error: 'validation_failed',
      message: expect.stringContaining('ordering must be one of none, per_lead, got "sideways"'),
    });
    const [unchanged] = await t.db.query('SELECT ordering FROM webhook_endpoint WHERE id = $1', [
      id,
    ]);
    expect(unchanged).toEqual({ ordering: 'none' });

    const ok = await patch({ ordering: 'per_lead' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id, ordering: 'per_lead' });
    const read = await t.http().get(`${API}/endpoints/${id}`).set('Cookie', session.cookie);
    expect(read.body.ordering).toBe('per_lead');
    const [audit] = await t.db.query(
      `SELECT details FROM audit_log_entry WHERE action = 'endpoint.update' AND object_id = $1
        ORDER BY id DESC LIMIT 1`,
      [String(id)],
    );
    expect(audit.details).toEqual({ changes: { ordering: 'per_lead' } });
  });
});
