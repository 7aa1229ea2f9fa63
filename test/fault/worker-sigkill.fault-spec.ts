import { runScenario, Scenario } from './support/scenario';

afterEach(() => Scenario.cleanupAll());

const LEADS = 5000;

describe('worker SIGKILL during dispatch', () => {
  it(
    'an API, two workers, one SIGKILLed mid-dispatch and replaced: nothing lost, every copy recorded',
    () =>
      runScenario('worker-sigkill', __filename, async (scenario) => {
        const dep = scenario.deployment();
        const api = await dep.spawnApi().ready();
        const workers = [dep.spawnWorker(), dep.spawnWorker()];
        await Promise.all([...workers.map((w) => w.ready()), dep.setUp()]);
        dep.receiver.delayMs = 20;

        await dep.upload(api, LEADS);
        await dep.receiver.waitForCopies(LEADS * 0.3, 30_000);
        const copiesAtKill = dep.receiver.count;
        await dep.kill(workers[0]);
        const replacement = dep.spawnWorker();
        const killedAt = Date.now();
        await replacement.ready();
        scenario.note(
          `replacement ${replacement.name} running ${Date.now() - killedAt} ms after the SIGKILL`,
        );

        await scenario.finish({ deliveryDeadlineMs: 90_000 });
        scenario.figure(`SIGKILL at ${copiesAtKill}/${LEADS} receiver copies`);
        scenario.expect(
          copiesAtKill < LEADS,
          `the worker was killed only after ${copiesAtKill} copies: dispatch was over`,
        );
      }),
    200_000,
  );
});
