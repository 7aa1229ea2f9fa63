import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PG_SERVER_URL, randomTag, REDIS_SERVER_URL } from './config';
import { Deployment } from './deployment';
import { FaultProxy } from './fault-proxy';
import { checkDeployment, hasFinishedAt, type CheckOptions } from './invariants';
import { writeRow, type ResultRow } from './results';
import { deleteRedisKeys, dropDatabase, REDIS_CLAIM_KEY } from './stores';

export interface DeploymentOptions {
  label?: string;
  /** QUEUE_PREFIX: a string, `null` for unset (default namespace), or omitted: `fault-<scenario>-<tag>`. */
  queuePrefix?: string | null;
  /** Redis database index (0 unless the scenario reserved another one). */
  redisDb?: number;
}

export interface FinishOptions extends CheckOptions {
  /** How long after this call every delivery must have succeeded. */
  deliveryDeadlineMs?: number;
  /** How long the receiver and the attempt log may take to go quiet afterwards. */
  settleLimitMs?: number;
}

/** The outcome of one deployment, for scenario-specific checks before {@link Scenario.conclude}. */
export interface DeploymentReport {
  deployment: Deployment;
  row: ResultRow;
}

const live = new Set<Scenario>();

/**
 * One fault scenario: proxies in front of PostgreSQL and Redis that it controls, one or more
 * deployments (database, queue namespace, processes, receiver), a timeline for diagnostics,
 * and the figures row(s) it adds to the results table. Use through {@link runScenario}.
 */
export class Scenario {
  readonly tag = randomTag(6);
  readonly startedAt = Date.now();
  readonly pgProxy: FaultProxy;
  readonly redisProxy: FaultProxy;
  readonly workDir: string;
  readonly deployments: Deployment[] = [];
  readonly timeline: string[] = [];
  reports: DeploymentReport[] = [];
  /** Notes for the figures column, by deployment label ('' for the scenario's own). */
  readonly figures = new Map<string, string[]>();
  private concluded = false;
  private cleanedUp = false;
  /** Redis databases reserved with {@link claimEmptyRedisDb}, freed at clean-up. */
  readonly claimedRedisDbs: number[] = [];

  private constructor(
    readonly name: string,
    readonly file: string,
  ) {
    const pg = new URL(PG_SERVER_URL);
    const redis = new URL(REDIS_SERVER_URL);
    this.pgProxy = new FaultProxy('PostgreSQL', pg.hostname, Number(pg.port || 5432));
    this.redisProxy = new FaultProxy('Redis', redis.hostname, Number(redis.port || 6379));
    this.workDir = mkdtempSync(join(tmpdir(), `fault-${name}-`));
  }

  static async start(name: string, file: string): Promise<Scenario> {
    const scenario = new Scenario(name, file);
    live.add(scenario);
    await scenario.pgProxy.start();
    await scenario.redisProxy.start();
    scenario.note(
      `proxies: PostgreSQL on ${scenario.pgProxy.url}, Redis on ${scenario.redisProxy.url}`,
    );
    return scenario;
  }

  /** A deployment (checked by {@link finish} once {@link Deployment.setUp} ran) with a database named `campaign_api_fault_<scenario>_<tag>[_<label>]`. */
  deployment(options: DeploymentOptions = {}): Deployment {
    const label = options.label ?? '';
    const slug = `${this.name}_${this.tag}${label ? `_${label}` : ''}`
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, '_');
    const prefix =
      options.queuePrefix === undefined
        ? `fault-${this.name}-${this.tag}${label ? `-${label}` : ''}`
        : options.queuePrefix;
    const dep = new Deployment(
      this,
      label,
      `campaign_api_fault_${slug}`.slice(0, 63),
      prefix,
      options.redisDb ?? 0,
    );
    this.deployments.push(dep);
    return dep;
  }

  /** A line of the timeline (printed when the scenario fails). */
  note(text: string): void {
    this.timeline.push(`+${((Date.now() - this.startedAt) / 1000).toFixed(3)}s ${text}`);
  }

  /** A figure for the results table's "figures" column. */
  figure(text: string, dep?: Deployment): void {
    const key = dep?.label ?? '';
    this.figures.set(key, [...(this.figures.get(key) ?? []), text]);
  }

  async cut(proxy: FaultProxy): Promise<void> {
    const destroyed = await proxy.cut();
    this.note(`${proxy.name} cut (${destroyed} connections destroyed, new ones refused)`);
  }

  async restore(proxy: FaultProxy): Promise<void> {
    await proxy.restore();
    this.note(`${proxy.name} restored on ${proxy.url}`);
  }

  /**
   * Waits until every deployment's deliveries all succeeded (or the deadline passes), lets
   * the receivers and attempt logs go quiet, stops every process with SIGTERM, then checks
   * the invariants on the final state. Scenario-specific checks may add to the reports'
   * violations before {@link conclude}.
   */
  async finish(options: FinishOptions = {}): Promise<DeploymentReport[]> {
    const deadline = Date.now() + (options.deliveryDeadlineMs ?? 45_000);
    const checked = this.deployments.filter((dep) => dep.db !== undefined);
    const delivered = await Promise.all(
      checked.map((dep) => this.waitForFullDelivery(dep, deadline)),
    );
    await this.settle(checked, options.settleLimitMs ?? 30_000);
    await this.stopAll();
    await Promise.all(checked.map((dep) => dep.stopMonitor()));
    this.reports = [];
    for (const [i, dep] of checked.entries()) {
      const { figures, violations } = await checkDeployment(dep, options);
      const full = delivered[i];
      // Where deliveries may fail for good, "settled" is the end; the checks account for them.
      if (full.at === null && !(options.mayFailForGood && dep.settledWithFailures)) {
        violations.unshift(
          `not fully delivered within ${((options.deliveryDeadlineMs ?? 45_000) / 1000).toFixed(0)} s: ${full.progress}`,
        );
      }
      const last202 = dep.last202At;
      this.reports.push({
        deployment: dep,
        row: {
          scenario: dep.label ? `${this.name} (${dep.label})` : this.name,
          file: this.file,
          startedAt: this.startedAt + i,
          runtimeMs: 0,
          leads: figures.leads,
          uploads: figures.uploads,
          deliveriesSucceeded: figures.deliveriesSucceeded,
          deliveries: figures.deliveries,
          copies: figures.copies,
          distinctIds: figures.distinctIds,
          duplicates: figures.duplicates,
          duplicates2xx: figures.duplicates2xx,
          attempts: figures.attempts,
          failedAttempts: figures.failedAttempts,
          unrecordedCopies: figures.unrecordedCopies,
          timeToFullDeliveryMs:
            full.at !== null && last202 > 0 ? Math.max(0, full.at - last202) : null,
          notes: [],
          violations,
        },
      });
    }
    return this.reports;
  }

  /** Adds a violation to a deployment's report when `ok` is false. */
  expect(ok: boolean, violation: string, dep?: Deployment): void {
    if (ok) return;
    const report = dep ? this.reports.find((r) => r.deployment === dep) : this.reports[0];
    if (!report)
      throw new Error(`no report for ${dep?.label ?? 'the scenario'}: call finish() first`);
    report.row.violations.push(violation);
  }

  /** Writes the rows; throws with the violations, the timeline and the processes' last lines. */
  conclude(): void {
    this.concluded = true;
    const rows = this.rows();
    rows.forEach(writeRow);
    const violations = rows.flatMap((r) => r.violations.map((v) => `[${r.scenario}] ${v}`));
    if (violations.length > 0) throw new Error(this.diagnostics(violations));
    if (process.env.FAULT_VERBOSE) process.stdout.write(`${this.diagnostics([])}\n`);
  }

  /** Records a scenario that stopped on an error (its row says so) and returns the error to throw. */
  aborted(error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    if (!this.concluded) {
      this.concluded = true;
      const rows = this.rows();
      if (rows.length === 0) rows.push(this.emptyRow());
      rows.forEach((r) => r.violations.push(`aborted: ${message.split('\n')[0]}`));
      rows.forEach(writeRow);
      return new Error(this.diagnostics([`aborted: ${message}`]));
    }
    return error instanceof Error ? error : new Error(message);
  }

  /** Kills what still runs, closes proxies and receivers, drops the databases, deletes the Redis keys. */
  async cleanup(): Promise<void> {
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    live.delete(this);
    this.note('clean-up');
    const processes = this.deployments.flatMap((d) => d.running);
    await Promise.all(processes.map((p) => p.kill()));
    await Promise.all([
      this.pgProxy.close(),
      this.redisProxy.close(),
      ...this.deployments.map((d) => d.receiver.stop()),
    ]);
    const problems: string[] = [];
    for (const dep of this.deployments) {
      await dep.stopMonitor();
      await dep.db?.end().catch(() => undefined);
      await dropDatabase(dep.dbName).catch((e: Error) =>
        problems.push(`drop ${dep.dbName}: ${e.message}`),
      );
      const patterns =
        dep.queuePrefix !== null
          ? [`${dep.queuePrefix}:*`, `{${dep.queuePrefix}}:*`] // counters and claim; the queue's hash-tagged keys
          : dep.redisDb !== 0
            ? ['campaign-api*', '{campaign-api*'] // the default namespace(s), only ever in a database reserved for this scenario
            : [];
      for (const pattern of patterns) {
        await deleteRedisKeys(dep.redisDb, pattern).catch((e: Error) =>
          problems.push(`redis ${pattern}: ${e.message}`),
        );
      }
    }
    for (const db of this.claimedRedisDbs) {
      await deleteRedisKeys(db, REDIS_CLAIM_KEY).catch(() => undefined);
    }
    rmSync(this.workDir, { recursive: true, force: true });
    const runtimeMs = Date.now() - this.startedAt;
    this.note('cleaned up');
    if (process.env.FAULT_VERBOSE)
      process.stdout.write(`${this.name}: ${this.timeline.slice(-3).join(' | ')}\n`);
    if (this.concluded) {
      for (const row of this.rows()) writeRow({ ...row, runtimeMs });
    }
    if (problems.length > 0)
      process.stderr.write(`fault scenario ${this.name} clean-up: ${problems.join('; ')}\n`);
  }

  /** Clean-up of scenarios a timed-out test left behind (jest abandons the test body). */
  static async cleanupAll(): Promise<void> {
    await Promise.all(
      [...live].map(async (scenario) => {
        scenario.aborted(new Error('the test timed out (jest testTimeout)'));
        await scenario.cleanup();
      }),
    );
  }

  private rows(): ResultRow[] {
    return this.reports.map(({ deployment, row }) => ({
      ...row,
      // Figures of a deployment, plus the scenario's own on its first row.
      notes: [
        ...(deployment === this.deployments[0] && deployment.label
          ? (this.figures.get('') ?? [])
          : []),
        ...(this.figures.get(deployment.label) ?? []),
      ],
      runtimeMs: Date.now() - this.startedAt,
    }));
  }

  private emptyRow(): ResultRow {
    return {
      scenario: this.name,
      file: this.file,
      startedAt: this.startedAt,
      runtimeMs: Date.now() - this.startedAt,
      leads: 0,
      uploads: this.deployments.flatMap((d) => d.uploads).length ? 'see timeline' : 'none',
      deliveriesSucceeded: 0,
      deliveries: 0,
      copies: this.deployments.reduce((a, d) => a + d.receiver.count, 0),
      distinctIds: 0,
      duplicates: 0,
      duplicates2xx: 0,
      attempts: 0,
      failedAttempts: 0,
      unrecordedCopies: 0,
      timeToFullDeliveryMs: null,
      notes: this.figures.get('') ?? [],
      violations: [],
    };
  }

  private diagnostics(violations: string[]): string {
    const tails = this.deployments.flatMap((d) => d.processes.map((p) => p.tail(12)));
    return [
      `fault scenario "${this.name}" (${basename(this.file)}): ${violations.length} violation(s)`,
      ...violations.map((v) => `  ✗ ${v}`),
      '',
      'timeline:',
      ...this.timeline.map((t) => `  ${t}`),
      '',
      'processes:',
      ...tails,
    ].join('\n');
  }

  /** Waits for the deployment's monitor to see every delivery succeeded (see {@link Deployment.deliveredSince}). */
  private async waitForFullDelivery(
    dep: Deployment,
    deadline: number,
  ): Promise<{ at: number | null; progress: string }> {
    for (;;) {
      if (this.cleanedUp) return { at: null, progress: 'scenario cleaned up' };
      if (dep.deliveredSince !== null) {
        this.note(
          `${dep.prefixed('all delivered')} (seen at +${((dep.deliveredSince - this.startedAt) / 1000).toFixed(3)}s): ${dep.progress}`,
        );
        return { at: dep.deliveredSince, progress: dep.progress };
      }
      if (dep.settledWithFailures || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.note(`${dep.prefixed('not all delivered')}: ${dep.progress}`);
    return { at: null, progress: dep.progress };
  }

  /** Waits until no copy arrives and no attempt is written for 1.5 s, with none left unfinished. */
  private async settle(deployments: Deployment[], limitMs: number): Promise<void> {
    const deadline = Date.now() + limitMs;
    let last = '';
    let quietSince = Date.now();
    for (;;) {
      const parts: string[] = [];
      let unfinished = 0;
      for (const dep of deployments) {
        const finishedCol = await hasFinishedAt(dep.db!);
        const { rows } = await dep.db!.query(
          `SELECT count(*)::int AS n, ${finishedCol ? 'count(*) FILTER (WHERE finished_at IS NULL)' : '0'}::int AS unfinished
             FROM webhook_delivery_attempt`,
        );
        unfinished += rows[0].unfinished;
        parts.push(`${dep.receiver.count}/${rows[0].n}/${rows[0].unfinished}`);
      }
      const snapshot = parts.join(' ');
      if (snapshot !== last) {
        last = snapshot;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= 1500 && unfinished === 0) {
        this.note(`settled (receiver copies/attempts/unfinished: ${snapshot})`);
        return;
      }
      if (Date.now() > deadline) {
        this.note(
          `not settled within ${limitMs} ms (receiver copies/attempts/unfinished: ${snapshot})`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** SIGTERM to every running process at once; each stop is recorded for the exit-code check. */
  private async stopAll(): Promise<void> {
    await Promise.all(this.deployments.flatMap((dep) => dep.running.map((p) => dep.terminate(p))));
  }
}

/**
 * Runs one scenario: `body` builds and drives it and calls `finish()`; then its rows are
 * written and its violations thrown together, with the timeline and the processes' output.
 * Whatever happens, every process is killed, the databases dropped and the Redis keys deleted.
 */
export async function runScenario(
  name: string,
  file: string,
  body: (scenario: Scenario) => Promise<void>,
): Promise<void> {
  const scenario = await Scenario.start(name, file);
  try {
    await body(scenario);
    if (scenario.reports.length === 0) throw new Error('the scenario never called finish()');
    scenario.conclude();
  } catch (error) {
    throw scenario.aborted(error);
  } finally {
    await scenario.cleanup();
  }
}
