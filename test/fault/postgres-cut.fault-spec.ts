import type { UploadRecord } from './support/deployment';
import { runScenario, Scenario } from './support/scenario';
import { hold } from './support/time';

afterEach(() => Scenario.cleanupAll());

/** `12×503, 1×202`: how a list of uploads was answered. */
const statuses = (uploads: UploadRecord[]): string => {
  const counts = new Map<string, number>();
  for (const u of uploads) {
    const key = String(u.answer.status ?? u.answer.error);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([status, n]) => `${n}×${status}`).join(', ') || 'none';
};

describe('PostgreSQL cut', () => {
  it(
    'during uploads: each gets 202 or 503 service_unavailable, nothing partial, the API recovers by itself',
    () =>
      runScenario('pg-cut-upload', __filename, async (scenario) => {
        const dep = scenario.deployment();
        // One API process running the delivery worker too (RUN_WORKER=true, the default set-up).
        const api = await dep.spawnApi({ RUN_WORKER: 'true' }).ready();
        await dep.setUp();
        await dep.token(api);

        // Cut in the middle of an upload's transaction: as soon as its import record is sent.
        const inTransaction = scenario.pgProxy.waitForUpstream('lead_import', 20_000);
        const first = dep.upload(api, 5000, { label: 'in-flight', timeoutMs: 30_000 });
        await inTransaction;
        await scenario.cut(scenario.pgProxy);
        const cutAt = Date.now();
        const during: UploadRecord[] = [];
        while (Date.now() - cutAt < 3000) {
          during.push(
            await dep.upload(api, 200, {
              label: `during-cut-${during.length + 1}`,
              timeoutMs: 30_000,
            }),
          );
          await hold(250);
        }
        await scenario.restore(scenario.pgProxy);
        const restoredAt = Date.now();
        await first;
        // Recovers by itself: retry (each time with new phones) until a 202, as a client would.
        const after: UploadRecord[] = [];
        while (Date.now() - restoredAt < 20_000) {
          const u = await dep.upload(api, 200, {
            label: `after-restore-${after.length + 1}`,
            timeoutMs: 30_000,
          });
          after.push(u);
          if (u.answer.status === 202) break;
          await hold(250);
        }

        await scenario.finish({ deliveryDeadlineMs: 20_000, uploadStatuses: [503] });
        const firstAccepted = after.find((u) => u.answer.status === 202);
        scenario.figure(
          `in-flight upload → ${statuses(dep.uploads.slice(0, 1))}; during the cut → ${statuses(during)}; ` +
            `first 202 ${firstAccepted ? `${firstAccepted.answer.answeredAt - restoredAt} ms` : 'never'} after the restore`,
        );
        scenario.expect(during.length > 0, 'no upload was sent while PostgreSQL was away');
        scenario.expect(
          firstAccepted !== undefined,
          `no 202 within 20 s of the restore (${statuses(after)})`,
        );
      }),
    120_000,
  );

  it(
    'during dispatch: nothing lost, every receiver copy recorded as an attempt',
    () =>
      runScenario('pg-cut-dispatch', __filename, async (scenario) => {
        const dep = scenario.deployment();
        const api = await dep.spawnApi().ready();
        const worker = dep.spawnWorker();
        await Promise.all([worker.ready(), dep.setUp()]);
        dep.receiver.delayMs = 20;

        await dep.upload(api, 5000);
        await dep.receiver.waitForCopies(1250, 30_000);
        await scenario.cut(scenario.pgProxy);
        const copiesAtCut = dep.receiver.count;
        await hold(3000);
        const copiesAtRestore = dep.receiver.count;
        await scenario.restore(scenario.pgProxy);

        await scenario.finish({ deliveryDeadlineMs: 60_000 });
        scenario.figure(
          `cut at ${copiesAtCut}/5000 copies; ${copiesAtRestore - copiesAtCut} copies while PostgreSQL was away`,
        );
        scenario.expect(
          copiesAtCut < 5000,
          `PostgreSQL was cut only after ${copiesAtCut} copies: dispatch was over`,
        );
      }),
    170_000,
  );
});
