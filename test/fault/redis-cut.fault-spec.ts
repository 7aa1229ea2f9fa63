import { runScenario, Scenario } from './support/scenario';
import { hold } from './support/time';

afterEach(() => Scenario.cleanupAll());

describe('Redis cut', () => {
  it(
    'during uploads: they still get 202 while Redis is away, and are delivered once it is back',
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
        await scenario.restore(scenario.redisProxy);
        const restoredAt = Date.now();
        await uploads;

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
