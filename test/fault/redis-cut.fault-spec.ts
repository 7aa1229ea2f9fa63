import { requestJson } from './support/http-client';
import type { FaultReceiver } from './support/receiver';
import { runScenario, Scenario } from './support/scenario';
import { hold } from './support/time';

/** Redis reconnects within 500 ms in every mode; then the API is ready at its next check. */
const READY_AFTER_RESTORE_MS = 2_000;
/** The reconnect, then one sweep (WEBHOOK_SWEEP_INTERVAL_MS = 1 s here) and the send. */
const FIRST_COPY_AFTER_RESTORE_MS = 3_000;

/** ms from `since` until `GET /health/ready` answers 200 (polled every 50 ms; -1: never, in 15 s). */
async function readyAfter(baseUrl: string, since: number): Promise<number> {
  while (Date.now() - since < 15_000) {
    const answer = await requestJson(baseUrl, 'GET', '/health/ready', { timeoutMs: 1_000 });
    if (answer.status === 200) return answer.answeredAt - since;
    await hold(50);
  }
  return -1;
}

/** ms from `since` until the receiver got a copy more than the `before` it had (-1: none in 15 s). */
async function firstCopyAfter(
  receiver: FaultReceiver,
  before: number,
  since: number,
): Promise<number> {
  await receiver.waitForCopies(before + 1, 15_000).catch(() => undefined);
  const copy = receiver.copies[before];
  return copy ? copy.receivedAt - since : -1;
}

afterEach(() => Scenario.cleanupAll());

describe('Redis cut', () => {
  it(
    'during uploads: they still get 202 while Redis is away; once it is back the API is ready within 2 s and delivery resumes within 3 s',
    () =>
      runScenario('redis-cut-upload', __filename, async (scenario) => {
        const dep = scenario.deployment();
        const api = await dep.spawnApi().ready();
        const worker = dep.spawnWorker();
        await Promise.all([worker.ready(), dep.setUp()]);
        await dep.token(api);

        await scenario.cut(scenario.redisProxy);
        const cutAt = Date.now();
        const uploads = (async () => {
          for (let i = 0; i < 3; i++) await dep.upload(api, 500, { timeoutMs: 30_000 });
        })();
        await hold(4000);
        const copiesBefore = dep.receiver.count;
        await scenario.restore(scenario.redisProxy);
        const restoredAt = Date.now();
        const [readyMs, firstCopyMs] = await Promise.all([
          readyAfter(api.baseUrl, restoredAt),
          firstCopyAfter(dep.receiver, copiesBefore, restoredAt),
        ]);
        await uploads;
        scenario.figure(
          `after the restore: API ready in ${readyMs} ms, first delivery in ${firstCopyMs} ms`,
        );
        scenario.expect(
          readyMs >= 0 && readyMs <= READY_AFTER_RESTORE_MS,
          `the API was ready ${readyMs} ms after Redis came back (at most ${READY_AFTER_RESTORE_MS} ms; -1: not in 15 s)`,
        );
        scenario.expect(
          firstCopyMs >= 0 && firstCopyMs <= FIRST_COPY_AFTER_RESTORE_MS,
          `the first delivery came ${firstCopyMs} ms after Redis came back (at most ${FIRST_COPY_AFTER_RESTORE_MS} ms; -1: not in 15 s)`,
        );

        await scenario.finish({ deliveryDeadlineMs: 20_000 });
        const slowest = Math.max(
          ...dep.uploads.map((u) => u.answer.answeredAt - u.answer.startedAt),
        );
        scenario.figure(
          `Redis away ${((restoredAt - cutAt) / 1000).toFixed(1)} s; uploads answered in ≤ ${slowest} ms`,
        );
        for (const u of dep.uploads) {
          scenario.expect(
            u.answer.answeredAt > 0 && u.answer.answeredAt < restoredAt,
            `${u.label} was answered only after Redis came back (${u.answer.answeredAt - restoredAt} ms after the restore)`,
          );
        }
      }),
    90_000,
  );

  it(
    'during dispatch: delivery resumes after the restore, nothing lost, every copy recorded',
    () =>
      runScenario('redis-cut-dispatch', __filename, async (scenario) => {
        const dep = scenario.deployment();
        const api = await dep.spawnApi().ready();
        // BullMQ commands in flight at any instant, so a cut always interrupts some. New
        // deliveries come 50 to a job: 20 jobs at once hold 1,000 of the 5,000 in the worker,
        // which it goes on sending while Redis is away; then it needs Redis for the next jobs.
        const worker = dep.spawnWorker({ WEBHOOK_WORKER_CONCURRENCY: '20' });
        await Promise.all([worker.ready(), dep.setUp()]);
        dep.receiver.delayMs = 20;

        await dep.upload(api, 5000);
        // Two cuts, at a quarter and at a half of the copies: each lands on whatever BullMQ
        // commands are in flight at that instant.
        const copiesAtCut: number[] = [];
        const copiesWhileAway: number[] = [];
        for (const [at, forMs] of [
          [1250, 3000],
          [2500, 2000],
        ]) {
          await dep.receiver.waitForCopies(at, 30_000);
          await scenario.cut(scenario.redisProxy);
          copiesAtCut.push(dep.receiver.count);
          await hold(forMs);
          copiesWhileAway.push(dep.receiver.count - copiesAtCut[copiesAtCut.length - 1]);
          await scenario.restore(scenario.redisProxy);
        }

        await scenario.finish({ deliveryDeadlineMs: 60_000 });
        scenario.figure(
          `cut at ${copiesAtCut.join(' and ')} of 5000 copies (3 s, 2 s); ${copiesWhileAway.join(' and ')} copies while Redis was away`,
        );
        scenario.expect(
          copiesAtCut[1] < 5000,
          `Redis was cut only after ${copiesAtCut[1]} copies: dispatch was over`,
        );
      }),
    170_000,
  );
});
