import { Client } from 'pg';
import { baseServiceEnv } from './config';
import { requestJson, phoneAt, type HttpAnswer, type Transport } from './http-client';
import { FaultReceiver } from './receiver';
import { runCli, ServiceProcess, type StopRecord } from './service-process';
import { databaseUrl, redisUrl } from './stores';
import type { Scenario } from './scenario';

/** One upload the scenario sent, with the phone range it used (`phoneAt(first … first+count-1)`). */
export interface UploadRecord {
  label: string;
  firstIndex: number;
  count: number;
  transport: Transport;
  answer: HttpAnswer;
}

/** The deployment's endpoint, as {@link Deployment.setUp} creates it. */
export interface EndpointOptions {
  /** The event types it subscribes to (default `lead.created` only). */
  events?: string[];
  /** `endpoint create --ordering` (default: the CLI's, `none`). */
  ordering?: 'none' | 'per_lead';
}

export interface UploadOptions {
  transport?: Transport;
  label?: string;
  timeoutMs?: number;
}

/**
 * One deployment of the service: its own database (`campaign_api_fault_<scenario>_<tag>`),
 * its queue namespace (an explicit QUEUE_PREFIX, or none: the default), its processes, one
 * campaign with one endpoint subscribed to `lead.created` that points at its own receiver,
 * and every upload it was sent.
 */
export class Deployment {
  readonly receiver: FaultReceiver;
  readonly processes: ServiceProcess[] = [];
  readonly stops: StopRecord[] = [];
  readonly uploads: UploadRecord[] = [];
  db?: Client;
  campaignId = 0;
  endpointId = 0;
  apiKey = '';
  /** Since when every delivery of every lead has succeeded (null: not now). */
  deliveredSince: number | null = null;
  /** The last poll of the delivery monitor, for diagnostics. */
  progress = 'not polled yet';
  /** Whether some delivery ended failed (no more retries) with none pending. */
  settledWithFailures = false;
  /**
   * Deliveries each lead gets once the scenario has recorded all its events (1: its
   * `lead.created`); "every delivery succeeded" waits for leads × this many.
   */
  deliveriesPerLead = 1;
  private nextPhone = 0;
  private uploadsInFlight = 0;
  private monitoring?: Promise<void>;
  private monitorStopped = false;
  private readonly tokens = new Map<string, string>();
  private counters = { api: 0, worker: 0 };

  constructor(
    readonly scenario: Scenario,
    readonly label: string,
    readonly dbName: string,
    /** null: QUEUE_PREFIX unset (the service's default namespace). */
    readonly queuePrefix: string | null,
    readonly redisDb: number,
  ) {
    this.receiver = new FaultReceiver(this.prefixed('receiver'));
  }

  /** The environment of this deployment's processes: database and Redis through the proxies. */
  serviceEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...baseServiceEnv(),
      DATABASE_URL: databaseUrl(this.dbName, this.scenario.pgProxy.url),
      REDIS_URL: redisUrl(this.redisDb, this.scenario.redisProxy.url),
      ...(this.queuePrefix === null ? {} : { QUEUE_PREFIX: this.queuePrefix }),
      ...extra,
    };
  }

  /** The same with the direct URLs: for the CLI, which sets the scenario up. */
  directEnv(): Record<string, string> {
    return {
      ...this.serviceEnv(),
      DATABASE_URL: databaseUrl(this.dbName),
      REDIS_URL: redisUrl(this.redisDb),
    };
  }

  /** Spawns `node <dist>/main.js` (the API; RUN_WORKER=false unless `extra` says otherwise). */
  spawnApi(extra: Record<string, string> = {}): ServiceProcess {
    const name = this.prefixed(`api-${++this.counters.api}`);
    return this.track(
      new ServiceProcess(
        name,
        'main.js',
        this.serviceEnv({ RUN_WORKER: 'false', ...extra }),
        this.scenario.workDir,
      ),
    );
  }

  /** Spawns `node <dist>/worker.js`. */
  spawnWorker(extra: Record<string, string> = {}): ServiceProcess {
    const name = this.prefixed(`worker-${++this.counters.worker}`);
    return this.track(
      new ServiceProcess(name, 'worker.js', this.serviceEnv(extra), this.scenario.workDir),
    );
  }

  /**
   * Account, campaign, API key and an endpoint (lead.created, or `endpoint.events`, → the
   * receiver) through the compiled CLI on the direct URLs; then a direct client for polling
   * and checks.
   */
  async setUp(endpoint: EndpointOptions = {}): Promise<void> {
    const cli = (...args: string[]) => runCli(this.directEnv(), this.scenario.workDir, ...args);
    const account = await cli('account', 'create', '--name', `fault ${this.scenario.name}`);
    const [campaign, key] = await Promise.all([
      cli('campaign', 'create', '--account', String(account.id), '--name', 'fault'),
      cli('api-key', 'create', '--account', String(account.id), '--name', 'fault'),
      this.receiver.start(),
    ]);
    const created = await cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      this.receiver.url,
      '--events',
      (endpoint.events ?? ['lead.created']).join(','),
      ...(endpoint.ordering ? ['--ordering', endpoint.ordering] : []),
    );
    this.campaignId = Number(campaign.id);
    this.endpointId = Number(created.id);
    this.apiKey = String(key.api_key);
    this.receiver.secrets.push(String(created.secret));
    this.db = new Client({ connectionString: databaseUrl(this.dbName) });
    this.db.on('error', () => undefined);
    await this.db.connect();
    this.monitoring = this.monitor();
    this.scenario.note(
      `${this.prefixed('set up')}: database ${this.dbName}, campaign ${this.campaignId}, endpoint ${this.endpointId} → ${this.receiver.url}`,
    );
  }

  /** A bearer token from `api` (cached per API process and transport). */
  async token(api: ServiceProcess, transport: Transport = 'http'): Promise<string> {
    const cacheKey = `${api.baseUrl} ${transport}`;
    const cached = this.tokens.get(cacheKey);
    if (cached) return cached;
    const answer = await requestJson(api.baseUrl, 'POST', '/api/v1/auth/api-key/token', {
      body: { api_key: this.apiKey },
      transport,
    });
    const token = (answer.json as { access_token?: string } | undefined)?.access_token;
    if (answer.status !== 200 || !token) {
      throw new Error(
        `token exchange on ${api.name}: ${answer.status ?? answer.error} ${answer.text}`,
      );
    }
    this.tokens.set(cacheKey, token);
    return token;
  }

  /** The body of an upload of `count` leads with the next unused phones. */
  nextUploadBody(count: number): { firstIndex: number; body: Record<string, unknown> } {
    const firstIndex = this.nextPhone;
    this.nextPhone += count;
    return {
      firstIndex,
      body: {
        campaign_id: this.campaignId,
        compliance_acknowledged: true,
        source: 'fault',
        leads: Array.from({ length: count }, (_, i) => ({ phone: phoneAt(firstIndex + i) })),
      },
    };
  }

  /** Uploads `count` leads with fresh phones through `api`; recorded whatever the answer. */
  async upload(
    api: ServiceProcess,
    count: number,
    options: UploadOptions = {},
  ): Promise<UploadRecord> {
    const transport = options.transport ?? 'http';
    const token = await this.token(api, transport);
    const { firstIndex, body } = this.nextUploadBody(count);
    const record: UploadRecord = {
      label: options.label ?? `upload-${this.uploads.length + 1}`,
      firstIndex,
      count,
      transport,
      answer: {
        status: null,
        json: undefined,
        text: '',
        error: 'in flight',
        startedAt: Date.now(),
        answeredAt: 0,
      },
    };
    this.uploads.push(record);
    this.uploadsInFlight++;
    try {
      record.answer = await requestJson(api.baseUrl, 'POST', '/api/v1/leads/upload', {
        body,
        token,
        transport,
        timeoutMs: options.timeoutMs ?? 60_000,
      });
    } finally {
      this.uploadsInFlight--;
    }
    this.scenario.note(
      `${this.prefixed(record.label)}: ${count} leads → ${record.answer.status ?? record.answer.error} in ${record.answer.answeredAt - record.answer.startedAt} ms`,
    );
    return record;
  }

  /** When the last 202 arrived (0 when none did). */
  get last202At(): number {
    return Math.max(
      0,
      ...this.uploads.filter((u) => u.answer.status === 202).map((u) => u.answer.answeredAt),
    );
  }

  /** SIGTERM one process, recorded for the exit-code check. */
  async terminate(process: ServiceProcess, limitMs?: number): Promise<StopRecord> {
    this.scenario.note(`SIGTERM ${process.name}`);
    const stop = await process.terminate(limitMs);
    this.stops.push(stop);
    this.scenario.note(
      `${process.name} exited (${stop.signal ?? `code ${stop.code}`}) ${stop.ms} ms after SIGTERM${stop.forced ? ' (SIGKILLed by the harness)' : ''}`,
    );
    return stop;
  }

  /** SIGKILL one process (not a stop: no exit code is expected). */
  async kill(process: ServiceProcess): Promise<void> {
    await process.kill();
    this.scenario.note(`SIGKILL ${process.name} (receiver had ${this.receiver.count} copies)`);
  }

  /** Stops the delivery monitor (before the final checks). */
  async stopMonitor(): Promise<void> {
    this.monitorStopped = true;
    await this.monitoring;
  }

  /**
   * Polls the database (directly, so outages do not blind it) every 100 ms from set-up on:
   * when every lead's delivery has succeeded, with no upload in flight, {@link deliveredSince}
   * holds the first poll that saw it, so "last 202 → all delivered" does not depend on when
   * the scenario asks.
   */
  private async monitor(): Promise<void> {
    while (!this.monitorStopped) {
      try {
        const { rows } = await this.db!.query(
          `SELECT (SELECT count(*) FROM lead WHERE campaign_id = $1)::int AS leads,
                  count(*)::int AS deliveries,
                  count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
                  count(*) FILTER (WHERE status = 'failed')::int AS failed
             FROM webhook_delivery`,
          [this.campaignId],
        );
        const r = rows[0] as {
          leads: number;
          deliveries: number;
          succeeded: number;
          failed: number;
        };
        const accepted = this.uploads
          .filter((u) => u.answer.status === 202)
          .reduce((sum, u) => sum + u.count, 0);
        this.progress =
          `${r.succeeded} of ${r.deliveries} deliveries succeeded, ${r.failed} failed, ${r.leads} leads ` +
          `(${accepted} accepted by 202s), receiver ${this.receiver.count} copies`;
        const complete =
          this.uploadsInFlight === 0 &&
          r.leads > 0 &&
          r.leads >= accepted &&
          r.deliveries === r.leads * this.deliveriesPerLead &&
          r.succeeded === r.deliveries;
        if (!complete) this.deliveredSince = null;
        else if (this.deliveredSince === null) this.deliveredSince = Date.now();
        this.settledWithFailures =
          this.uploadsInFlight === 0 && r.failed > 0 && r.succeeded + r.failed === r.deliveries;
      } catch (error) {
        this.progress = `monitor query failed: ${(error as Error).message}`;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Running processes. */
  get running(): ServiceProcess[] {
    return this.processes.filter((p) => p.running);
  }

  prefixed(name: string): string {
    return this.label ? `${this.label}/${name}` : name;
  }

  private track(process: ServiceProcess): ServiceProcess {
    this.processes.push(process);
    this.scenario.note(`spawned ${process.name} (pid ${process.pid})`);
    return process;
  }
}
