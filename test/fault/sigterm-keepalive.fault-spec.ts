import { Agent } from 'node:http';
import { hasFinishedAt } from './support/invariants';
import { isErrorEnvelope, requestJson, type HttpAnswer } from './support/http-client';
import { runScenario, Scenario } from './support/scenario';
import { hold } from './support/time';

afterEach(() => Scenario.cleanupAll());

/** A request sent to the API while it shuts down, and how it ended. */
interface Probe {
  via: string;
  answer: HttpAnswer;
  /**
   * Why the server had to answer it, if it had to: the connection was left open after an
   * answer given during the shutdown without `Connection: close`. Null for a request that
   * raced the close of a connection idle since before the SIGTERM (no server can answer those).
   */
  owed: string | null;
}

/** An answer a client can handle: a normal one, or the `{error, message}` envelope. Never Fastify's own `{statusCode, …}`. */
const handled = (a: HttpAnswer): boolean =>
  a.status !== null && ((a.status >= 200 && a.status < 300) || isErrorEnvelope(a.json));

/** No answer because the connection was refused (a new connection after the listener closed): allowed. */
const refused = (a: HttpAnswer): boolean =>
  a.status === null && /ECONNREFUSED|refused/i.test(a.error ?? '');

describe('SIGTERM with keep-alive clients', () => {
  it(
    'API: the in-flight upload gets its 202, requests on open keep-alive connections get real answers, exit 0 within 15 s',
    () =>
      runScenario('sigterm-api-keepalive', __filename, async (scenario) => {
        const dep = scenario.deployment();
        const api = await dep.spawnApi().ready();
        const worker = dep.spawnWorker();
        await Promise.all([worker.ready(), dep.setUp()]);
        dep.receiver.delayMs = 5;

        // Open keep-alive connections before the SIGTERM: two in global fetch's pool (one will
        // carry the upload), and one node:http socket kept alive by its agent.
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        const token = await dep.token(api, 'fetch');
        const healthPath = `/api/v1/webhooks/${dep.campaignId}/endpoints/${dep.endpointId}/health`;
        const get = (via: 'fetch' | 'node:http keep-alive agent') =>
          requestJson(api.baseUrl, 'GET', healthPath, {
            token,
            timeoutMs: 20_000,
            ...(via === 'fetch' ? { transport: 'fetch' as const } : { agent }),
          });
        const warm = await Promise.all([
          get('node:http keep-alive agent'),
          get('fetch'),
          get('fetch'),
        ]);
        if (!warm.every((a) => a.status === 200)) {
          throw new Error(`warm-up: ${warm.map((a) => a.status ?? a.error).join(', ')}`);
        }

        // SIGTERM while an upload (fetch, keep-alive) is inside its transaction.
        const inTransaction = scenario.pgProxy.waitForUpstream('lead_import', 20_000);
        const upload = dep.upload(api, 5000, { transport: 'fetch', label: 'in-flight' });
        await inTransaction;
        const sigtermAt = Date.now();
        const stopping = dep.terminate(api, 40_000);
        let exited = false;
        void stopping.then(() => (exited = true));
        const probes: Probe[] = [];

        // The upload's client sends its next request as soon as the 202 is in: on the same
        // connection unless the 202 said `Connection: close`.
        const afterUpload = upload.then(async (u) => {
          const answer = await get('fetch');
          probes.push({
            via: 'fetch, right after the in-flight upload',
            answer,
            owed: u.answer.connectionClose
              ? null
              : 'the 202 given during the shutdown kept its connection open',
          });
        });
        // A node:http client keeps sending on its kept-alive socket until the process is gone.
        let lastOnAgent: HttpAnswer = warm[0];
        while (!exited && probes.length < 2000) {
          const answer = await get('node:http keep-alive agent');
          const previous = lastOnAgent;
          probes.push({
            via: 'node:http keep-alive agent',
            answer,
            owed:
              answer.reusedSocket && previous.startedAt >= sigtermAt && !previous.connectionClose
                ? 'an answer given during the shutdown kept this connection open'
                : null,
          });
          if (answer.status !== null) lastOnAgent = answer;
          await hold(50);
        }
        const stop = await stopping;
        const uploaded = await upload;
        await afterUpload;
        agent.destroy();

        await scenario.finish({ deliveryDeadlineMs: 30_000 });
        const answered = probes.filter((p) => p.answer.status !== null);
        const bad = answered.filter((p) => !handled(p.answer));
        const dropped = probes.filter((p) => p.answer.status === null && !refused(p.answer));
        const statuses = [...new Set(answered.map((p) => p.answer.status))].join('/');
        scenario.figure(
          `API exit ${stop.signal ?? stop.code} ${(stop.ms / 1000).toFixed(2)} s after SIGTERM; ` +
            `in-flight upload ${uploaded.answer.status ?? uploaded.answer.error} after ${uploaded.answer.answeredAt - uploaded.answer.startedAt} ms` +
            `${uploaded.answer.connectionClose ? ' with Connection: close' : ''}; requests during shutdown: ` +
            `${answered.length} answered (${statuses || '—'}), ${probes.filter((p) => refused(p.answer)).length} refused, ` +
            `${dropped.length} dropped (${dropped.filter((p) => p.owed === null).length} raced the close of a connection idle since before the SIGTERM)`,
        );
        scenario.expect(
          stop.ms < 15_000,
          `the API took ${stop.ms} ms to exit after SIGTERM (limit 15 s)`,
        );
        for (const p of bad.slice(0, 5)) {
          scenario.expect(
            false,
            `request via ${p.via} during shutdown got ${p.answer.status} ${p.answer.text.slice(0, 200)}`,
          );
        }
        if (bad.length > 5) {
          scenario.expect(false, `… and ${bad.length - 5} more answers without the envelope`);
        }
        for (const p of dropped.filter((d) => d.owed !== null)) {
          scenario.expect(
            false,
            `request via ${p.via} got no answer (${p.answer.error}) although ${p.owed}`,
          );
        }
      }),
    180_000,
  );

  it(
    'worker: SIGTERM mid-dispatch of 5,000 deliveries exits 0 without aborting attempts; another worker finishes',
    () =>
      runScenario('sigterm-worker', __filename, async (scenario) => {
        const dep = scenario.deployment();
        const api = await dep.spawnApi().ready();
        // Many attempts in every phase (read, send, record) when the SIGTERM comes.
        const first = dep.spawnWorker({ WEBHOOK_WORKER_CONCURRENCY: '200' });
        await Promise.all([first.ready(), dep.setUp()]);
        dep.receiver.delayMs = 20;

        await dep.upload(api, 5000);
        await dep.receiver.waitForCopies(1000, 30_000);
        const copiesAtSigterm = dep.receiver.count;
        const stopping = dep.terminate(first, 40_000);
        const second = dep.spawnWorker();
        const [stop] = await Promise.all([stopping, second.ready()]);

        await scenario.finish({ deliveryDeadlineMs: 60_000 });
        const db = dep.db!;
        const destroyed = (
          await db.query(
            `SELECT count(*)::int AS n, min(error) AS example FROM webhook_delivery_attempt
            WHERE error ~* 'destroyed|UND_ERR_DESTROYED'`,
          )
        ).rows[0] as { n: number; example: string | null };
        const failed = (
          await db.query(
            `SELECT message_id, error FROM webhook_delivery_attempt
            WHERE NOT success AND ${(await hasFinishedAt(db)) ? 'finished_at IS NOT NULL' : 'true'}`,
          )
        ).rows as Array<{ message_id: string; error: string | null }>;
        const seen = dep.receiver.countsById();
        const unseenFailures = failed.filter((a) => !seen.has(a.message_id));
        scenario.figure(
          `SIGTERM at ${copiesAtSigterm}/5000 copies; worker exit ${stop.signal ?? stop.code} after ${(stop.ms / 1000).toFixed(2)} s; ` +
            `${failed.length} failed attempts (${destroyed.n} "destroyed")`,
        );
        scenario.expect(
          copiesAtSigterm < 5000,
          `SIGTERM came only after ${copiesAtSigterm} copies: dispatch was over`,
        );
        scenario.expect(
          destroyed.n === 0,
          `${destroyed.n} attempts aborted by the shutdown (e.g. "${destroyed.example}"): the receiver never failed`,
        );
        scenario.expect(
          unseenFailures.length === 0,
          `${unseenFailures.length} failed attempts the receiver never saw (e.g. "${unseenFailures[0]?.error}")`,
        );
      }),
    200_000,
  );
});
