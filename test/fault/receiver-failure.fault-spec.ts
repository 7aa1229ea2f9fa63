import { runScenario, Scenario } from './support/scenario';
import { hold } from './support/time';

afterEach(() => Scenario.cleanupAll());

describe('receiver failing, then recovering', () => {
  it(
    'answers 500 for 3 s, is down for 2 s, then 204: every delivery succeeds, failed attempts count in health',
    () =>
      runScenario('receiver-failure', __filename, async (scenario) => {
        const dep = scenario.deployment();
        // One API process running the delivery worker too (RUN_WORKER=true, the default set-up).
        const api = await dep.spawnApi({ RUN_WORKER: 'true' }).ready();
        await dep.setUp();

        await dep.receiver.setMode('error');
        scenario.note('receiver answers 500');
        await dep.upload(api, 1000);
        await hold(3000);
        const copiesWhileFailing = dep.receiver.count;
        await dep.receiver.setMode('down');
        scenario.note(`receiver down (${copiesWhileFailing} copies answered 500 so far)`);
        await hold(2000);
        await dep.receiver.setMode('ok');
        scenario.note('receiver answers 204 again');

        const [report] = await scenario.finish({ deliveryDeadlineMs: 30_000 });
        const refused = Number(
          (
            await dep.db!.query(
              `SELECT count(*) AS n FROM webhook_delivery_attempt WHERE error ~* 'refused'`,
            )
          ).rows[0].n,
        );
        scenario.figure(
          `${copiesWhileFailing} copies answered 500, ${refused} attempts refused while down`,
        );
        scenario.expect(copiesWhileFailing > 0, 'the receiver got no request while answering 500');
        scenario.expect(
          report.row.failedAttempts >= copiesWhileFailing,
          `health counts ${report.row.failedAttempts} failed attempts, the receiver answered ${copiesWhileFailing} with 500`,
        );
      }),
    130_000,
  );
});
