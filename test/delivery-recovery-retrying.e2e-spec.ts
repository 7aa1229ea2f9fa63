import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { DELIVERY_QUEUE, deliveryJobId } from '../src/delivery/outbox/delivery.queue';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { eventually, sleep } from './support/eventually';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver, type ReceiverBehaviour } from './support/webhook-receiver';
import { madeUpEvent } from './support/events';

/**
 * Bulk recovery of deliveries waiting on a retry (docs/webhooks.md#bulk-recovery): with a retry
 * schedule of two steps of 30 minutes, a receiver answering 500 leaves deliveries `pending`,
 * their next attempt half an hour away, while one answering `503` with `Retry-After: 1` uses the
 * schedule up within seconds (`failed`). Once the receiver is fixed, the preview counts both
 * kinds apart, and a recovery sends each exactly once more: the waiting ones through their own
 * retry job, moved to now, never beside an attempt under way.
 */
const API = '/dashboard/api';

describe('Bulk recovery of deliveries waiting on a retry (docs/webhooks.md#bulk-recovery)', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_RETRY_SCHEDULE: '30m,30m',
      RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  interface Setup {
    session: SignedIn;
    campaignId: number;
    endpointId: number;
    receiver: WebhookReceiver;
  }

  /**
   * An admin signed in and an endpoint of their account whose receiver answers each event as
   * its `data.want` says, through `answers` (changed by the test as the receiver is fixed).
   */
  async function setup(answers: Record<string, ReceiverBehaviour>): Promise<Setup> {
    const admin = await givenUser(t, 'admin');
    const session = await signIn(t, admin);
    const receiver = await new WebhookReceiver().start();
    receivers.push(receiver);
    receiver.behaviour = (i) => {
      const { data } = JSON.parse(receiver.received[i].body) as { data: { want: string } };
      return answers[data.want] ?? answers.default;
    };
    const campaignId = await t.given.campaign(admin.accountId);
    const { id: endpointId } = await t.given.endpoint(campaignId, receiver.url, ['lead.created']);
    return { session, campaignId, endpointId, receiver };
  }

  /** Records one event per `wants` entry; their deliveries' ids and webhook-ids, in order. */
  async function publish(s: Setup, wants: string[]) {
    const recorded = await t.app.get(WebhookEventPublisher).publish(
      s.campaignId,
      wants.map((want, i) =>
        madeUpEvent('lead.created', { id: i, campaign_id: s.campaignId, want }),
      ),
    );
    const rows: Array<{ id: number; event_id: string }> = await t.db.query(
      'SELECT id::int, event_id FROM webhook_delivery WHERE event_id = ANY($1) ORDER BY id',
      [recorded.events.map((e) => e.id)],
    );
    return rows;
  }

  const get = (s: Setup, path: string) =>
    t.http().get(`${API}${path}`).set('Cookie', s.session.cookie);
  const post = (s: Setup, path: string, body: object) =>
    t
      .http()
      .post(`${API}${path}`)
      .set({ Cookie: s.session.cookie, 'X-CSRF-Token': s.session.csrf })
      .send(body);

  const dbNow = async (): Promise<string> =>
    ((await t.db.query('SELECT now() AS now'))[0].now as Date).toISOString();

  /** Each delivery's status and attempt count, and its attempts' numbers and outcomes. */
  const stateOf = async (ids: number[]) =>
    t.db.query(
      `SELECT d.id::int, d.status, d.attempt_count,
              array_agg(a.attempt_number ORDER BY a.attempt_number) AS numbers,
              count(*) FILTER (WHERE a.finished_at IS NULL)::int AS unfinished,
              count(*) FILTER (WHERE a.success)::int AS successes
         FROM webhook_delivery d JOIN webhook_delivery_attempt a ON a.delivery_id = d.id
        WHERE d.id = ANY($1) GROUP BY d.id ORDER BY d.id`,
      [ids],
    );

  /** {@link stateOf}'s row of a delivery with `attempts` finished attempts, numbered from 1. */
  const settled = (id: number, status: string, attempts: number, successes = 0) => ({
    id,
    status,
    attempt_count: attempts,
    numbers: Array.from({ length: attempts }, (_, i) => i + 1),
    unfinished: 0,
    successes,
  });

  const sentTo = (s: Setup, webhookId: string) =>
    s.receiver.received.filter((w) => w.headers['webhook-id'] === webhookId).length;

  const recoveryRow = async (id: number) =>
    (
      await t.db.query('SELECT status, total, processed FROM delivery_recovery WHERE id = $1', [id])
    )[0];

  it('previews the pending deliveries waiting on a retry apart from the failed ones, and sends each exactly once more, moving the retry to now', async () => {
    const answers: Record<string, ReceiverBehaviour> = {
      busy: { status: 503, headers: { 'retry-after': '1' } },
      default: { status: 500 },
    };
    const s = await setup(answers);
    // Before `since`: waits on its retry too, and is left alone.
    const [before] = await publish(s, ['no']);
    await eventually(async () => {
      expect((await stateOf([before.id]))[0]).toMatchObject({ status: 'pending', numbers: [1] });
    });
    const since = await dbNow();
    const deliveries = await publish(s, ['busy', 'no', 'busy', 'no', 'no']);
    const ids = deliveries.map((d) => d.id);
    const failed = ids.filter((_, i) => i % 2 === 0 && i < 3);
    const waiting = ids.filter((id) => !failed.includes(id));
    // The busy ones use the schedule up within seconds; the others wait half an hour.
    await eventually(async () => {
      expect(await stateOf(ids)).toEqual(
        ids.map((id) =>
          failed.includes(id) ? settled(id, 'failed', 3) : settled(id, 'pending', 1),
        ),
      );
    }, 20_000);
    const [{ min_wait_s: minWaitS }] = await t.db.query(
      `SELECT min(extract(epoch FROM next_attempt_at - now()))::int AS min_wait_s
         FROM webhook_delivery WHERE id = ANY($1)`,
      [waiting],
    );
    expect(minWaitS).toBeGreaterThan(25 * 60);
    // Each waiting delivery's retry is its own job, delayed half an hour.
    const queue = t.app.get<Queue>(getQueueToken(DELIVERY_QUEUE));
    for (const id of [before.id, ...waiting]) {
      expect(await (await queue.getJob(deliveryJobId(id)))?.getState()).toBe('delayed');
    }

    const preview = await get(s, `/endpoints/${s.endpointId}/recovery/preview?since=${since}`);
    expect({ status: preview.status, body: preview.body }).toEqual({
      status: 200,
      body: { since, failed_count: 2, retrying_count: 3, skipped_count: 0 },
    });

    // The receiver is fixed; the recovery covers both kinds.
    answers.busy = answers.default = { status: 204 };
    const received = s.receiver.received.length;
    const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since });
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 202,
      body: { scope: 'failed', since, status: 'running', total: 5, processed: 0 },
    });
    await eventually(async () => {
      expect(await recoveryRow(res.body.id)).toEqual({ status: 'done', total: 5, processed: 5 });
    }, 20_000);
    await eventually(async () => {
      expect(await stateOf(ids)).toEqual(
        ids.map((id) =>
          failed.includes(id) ? settled(id, 'succeeded', 4, 1) : settled(id, 'succeeded', 2, 1),
        ),
      );
    });
    await sleep(1_500); // a second attempt, if any job were left to make one
    // Each was sent exactly once more: the failed ones a fourth time, the waiting ones a second.
    expect(s.receiver.received.length).toBe(received + 5);
    expect(deliveries.map((d) => sentTo(s, d.event_id))).toEqual([4, 2, 4, 2, 2]);
    // The waiting ones went through their own retry job (promoted, then done and removed).
    for (const id of waiting) expect(await queue.getJob(deliveryJobId(id))).toBeUndefined();
    // The one before `since` still waits on its retry, untouched.
    expect(await stateOf([before.id])).toEqual([settled(before.id, 'pending', 1)]);
    expect(await (await queue.getJob(deliveryJobId(before.id)))?.getState()).toBe('delayed');
    expect(sentTo(s, before.event_id)).toBe(1);

    // Nothing is left to recover since then.
    const after = await get(s, `/endpoints/${s.endpointId}/recovery/preview?since=${since}`);
    expect(after.body).toEqual({ since, failed_count: 0, retrying_count: 0, skipped_count: 0 });
  }, 60_000);

  it('never attempts a delivery twice at once: one whose retry is under way when it is recovered is sent once', async () => {
    const answers: Record<string, ReceiverBehaviour> = {
      // The first try asks for a retry in 2 s; that retry is slow, and succeeds.
      default: { status: 503, headers: { 'retry-after': '2' } },
    };
    const s = await setup(answers);
    const since = await dbNow();
    const [delivery] = await publish(s, ['slow']);
    await eventually(async () => {
      expect((await stateOf([delivery.id]))[0]).toMatchObject({ status: 'pending', numbers: [1] });
    });
    answers.default = { status: 204, delayMs: 3_000 };
    // Its retry has begun: the receiver holds the request.
    await s.receiver.waitFor(2);
    expect(await stateOf([delivery.id])).toEqual([
      {
        id: delivery.id,
        status: 'pending',
        attempt_count: 1,
        numbers: [1, 2],
        unfinished: 1,
        successes: 0,
      },
    ]);
    const preview = await get(s, `/endpoints/${s.endpointId}/recovery/preview?since=${since}`);
    expect(preview.body).toEqual({ since, failed_count: 0, retrying_count: 1, skipped_count: 0 });

    const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since }).expect(202);
    expect(res.body).toMatchObject({ status: 'running', total: 1 });
    await eventually(async () => {
      expect(await recoveryRow(res.body.id)).toEqual({ status: 'done', total: 1, processed: 1 });
    }, 20_000);
    await eventually(async () => {
      expect(await stateOf([delivery.id])).toEqual([settled(delivery.id, 'succeeded', 2, 1)]);
    });
    await sleep(2_000); // past the recovery's second look at it
    expect(sentTo(s, delivery.event_id)).toBe(2);
    expect((await stateOf([delivery.id]))[0].numbers).toEqual([1, 2]);
  }, 60_000);
});
