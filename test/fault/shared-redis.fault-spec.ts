import type { ServiceProcess } from './support/service-process';
import { describeExit } from './support/service-process';
import { runScenario, Scenario } from './support/scenario';
import { claimEmptyRedisDb } from './support/stores';

afterEach(() => Scenario.cleanupAll());

/**
 * The sweeper would deliver, seconds later, what a foreign worker took from a shared queue;
 * with a sweep this rare only the queue delivers within the deadline, so a stolen or
 * swallowed job shows up as a lost delivery.
 */
const QUEUE_ONLY = { WEBHOOK_SWEEP_INTERVAL_MS: '600000' };

describe('two deployments sharing one Redis', () => {
  it(
    'QUEUE_PREFIX unset in both: each delivers all of its own events, none of the other',
    () =>
      runScenario('shared-redis-default-prefix', __filename, async (scenario) => {
        // A Redis database of its own, so the default namespace never meets anything else on this Redis.
        const redisDb = await claimEmptyRedisDb();
        scenario.claimedRedisDbs.push(redisDb);
        scenario.note(`Redis database ${redisDb} reserved`);
        const deps = ['A', 'B'].map((label) =>
          scenario.deployment({ label, queuePrefix: null, redisDb }),
        );
        const apis = await Promise.all(deps.map((d) => d.spawnApi(QUEUE_ONLY).ready()));
        await Promise.all(
          deps.map((d) => Promise.all([d.spawnWorker(QUEUE_ONLY).ready(), d.setUp()])),
        );
        deps.forEach((d) => (d.receiver.delayMs = 5));

        await Promise.all(deps.map((d, i) => d.upload(apis[i], 2000)));

        const reports = await scenario.finish({ deliveryDeadlineMs: 20_000 });
        for (const { deployment, row } of reports) {
          scenario.figure(
            `receiver ${deployment.label}: ${row.copies} copies of ${row.distinctIds} ids`,
            deployment,
          );
        }
      }),
    120_000,
  );

  it(
    'the same explicit QUEUE_PREFIX for two databases: the second deployment refuses to start',
    () =>
      runScenario('shared-redis-same-prefix', __filename, async (scenario) => {
        const prefix = `fault-same-prefix-${scenario.tag}`;
        const owner = scenario.deployment({ label: 'C', queuePrefix: prefix });
        const other = scenario.deployment({ label: 'D', queuePrefix: prefix });
        const api = await owner.spawnApi().ready();
        await Promise.all([owner.spawnWorker().ready(), owner.setUp()]);

        // Another process of the same deployment (same database and prefix) must still start.
        const sameDeployment = owner.spawnWorker();
        const refusals: string[] = [];
        const outcome = async (proc: ServiceProcess): Promise<'started' | 'exited'> =>
          Promise.race([
            proc.exited.then(() => 'exited' as const),
            proc.ready(30_000).then(
              () => 'started' as const,
              () => 'exited' as const,
            ),
          ]);
        for (const proc of [other.spawnApi(), other.spawnWorker()]) {
          const result = await outcome(proc);
          if (result === 'started') {
            scenario.note(`${proc.name} started on ${prefix} although ${owner.dbName} uses it`);
            refusals.push(`${proc.entrypoint} started`);
            await other.terminate(proc);
          } else {
            const mentions = /QUEUE_PREFIX/.test(proc.output);
            scenario.note(
              `${proc.name} refused: ${describeExit(proc.exit!)}${mentions ? ', names QUEUE_PREFIX' : ''}`,
            );
            refusals.push(
              `${proc.entrypoint} ${describeExit(proc.exit!)}${mentions ? '' : ' (QUEUE_PREFIX not named)'}`,
            );
          }
        }
        const sameOutcome = await outcome(sameDeployment);

        await owner.upload(api, 500);
        await scenario.finish({ deliveryDeadlineMs: 20_000 });
        scenario.figure(
          `second database on the same prefix: ${refusals.join(', ')}; same deployment: ${sameOutcome}`,
        );
        for (const proc of other.processes) {
          scenario.expect(
            proc.exit !== undefined &&
              proc.exit.code !== 0 &&
              proc.exit.code !== null &&
              !other.stops.some((s) => s.process === proc.name),
            `${proc.name} (${proc.entrypoint}, database ${other.dbName}, QUEUE_PREFIX ${prefix}) started although ${owner.dbName} uses that prefix`,
          );
          scenario.expect(
            /QUEUE_PREFIX/.test(proc.output),
            `${proc.name}'s output does not name QUEUE_PREFIX:\n${proc.tail(5)}`,
          );
        }
        scenario.expect(
          sameOutcome === 'started',
          `a second worker of ${owner.dbName} on ${prefix} did not start:\n${sameDeployment.tail(5)}`,
        );
      }),
    180_000,
  );
});
