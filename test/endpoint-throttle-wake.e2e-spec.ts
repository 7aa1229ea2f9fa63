import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { givenUser, signIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { madeUpEvent } from './support/events';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * A change of an endpoint's throttle applies at once to what it holds back
 * (docs/webhooks.md#throttling): deliveries whose jobs were put back for turns up to 20 s away
 * under a limit of 1 per second are sent promptly once the limit is raised, or removed, in the dashboard.
 */
describe('Raising or removing an endpoint’s throttle wakes what it held back', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];
  const PENDING = 20;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  it.each<[string, number | null]>([
    ['raised to 1000 per second', 1000],
    ['removed', null],
  ])(
    'sends every held-back delivery within 3 s once the limit is %s',
    async (_what, limit) => {
      const admin = await givenUser(t, 'admin');
      const session = await signIn(t, admin);
      const receiver = await new WebhookReceiver().start();
      receivers.push(receiver);
      const campaignId = await t.given.campaign(admin.accountId);
      const { id } = await t.given.endpoint(campaignId, receiver.url, ['lead.created']);
      const patch = (body: object) =>
        t
          .http()
          .patch(`/dashboard/api/endpoints/${id}`)
          .set({ Cookie: session.cookie, 'X-CSRF-Token': session.csrf })
          .send(body);
      await patch({ max_deliveries_per_second: 1 }).expect(200);
      // One event at a time: each delivery has a job of its own, and each job held back gets a
      // turn of its own, one second after the previous one (up to 20 s away).
      for (let i = 1; i <= PENDING; i++) {
        await t.app
          .get(WebhookEventPublisher)
          .publish(campaignId, [madeUpEvent('lead.created', { id: i, campaign_id: campaignId })]);
      }
      // One or two go at once; the rest are put back, waiting on the throttle for many seconds.
      await eventually(async () => {
        const [{ held }] = await t.db.query(
          `SELECT count(*)::int AS held FROM webhook_delivery
            WHERE endpoint_id = $1 AND status = 'pending' AND throttled_until > now()`,
          [id],
        );
        expect(held).toBeGreaterThanOrEqual(PENDING - 3);
      }, 10_000);
      expect(receiver.received.length).toBeLessThan(5);

      const changed = Date.now();
      const res = await patch({ max_deliveries_per_second: limit }).expect(200);
      expect(res.body.max_deliveries_per_second).toBe(limit);
      await eventually(async () => {
        expect(receiver.received).toHaveLength(PENDING);
      }, 3_000);
      expect(Date.now() - changed).toBeLessThan(3_000);
      await eventually(async () => {
        expect(
          await t.db.query(
            `SELECT status, count(*)::int AS n FROM webhook_delivery WHERE endpoint_id = $1
              GROUP BY status`,
            [id],
          ),
        ).toEqual([{ status: 'succeeded', n: PENDING }]);
      });
    },
    30_000,
  );
});
