import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { inheritedEnv, REPO_ROOT, SERVICE_DIST } from './config';

/** One event to record: what `WebhookEventPublisher.publish` takes. */
export interface EventInput {
  type: string;
  data: Record<string, unknown>;
}

/** What one {@link EventEmitterProcess.emit} recorded. */
export interface Emitted {
  transactions: number;
  events: number;
  ms: number;
}

/**
 * `scripts/emit-lead-events.mjs` as a child process: the compiled service's outbox publisher
 * (from {@link SERVICE_DIST}) in a process of its own, recording events in transactions the
 * scenario lays out, as another service of the deployment would (no HTTP route records
 * `lead.status_changed`; the CLI would start a process per event).
 */
export class EventEmitterProcess {
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  private nextId = 1;
  private output = '';

  constructor(env: Record<string, string>, cwd: string) {
    this.child = fork(join(REPO_ROOT, 'scripts', 'emit-lead-events.mjs'), [], {
      env: { ...inheritedEnv(), ...env, EMIT_DIST: SERVICE_DIST },
      cwd,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-4000));
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (m: { type?: string }) => m?.type === 'ready' && resolve());
      this.child.once('exit', (code, signal) =>
        reject(new Error(`event emitter exited (${signal ?? code}) before ready:\n${this.output}`)),
      );
    });
  }

  /** Resolves once the publisher is up; rejects after `timeoutMs`. */
  async started(timeoutMs = 30_000): Promise<this> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ready,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`event emitter not ready in ${timeoutMs} ms:\n${this.output}`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    return this;
  }

  /**
   * Records `chains` for `campaignId`: each chain's transactions (each an array of events, one
   * `publish`) one after another, `lanes` chains at once.
   */
  emit(campaignId: number, chains: EventInput[][][], lanes: number): Promise<Emitted> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onMessage = (m: { id?: number; error?: string } & Partial<Emitted>) => {
        if (m?.id !== id) return;
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        if (m.error) reject(new Error(`event emitter: ${m.error}`));
        else resolve({ transactions: m.transactions!, events: m.events!, ms: m.ms! });
      };
      const onExit = () => reject(new Error(`event emitter exited:\n${this.output}`));
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send({ id, cmd: 'emit', campaignId, chains, lanes });
    });
  }

  /** Closes the publisher's application and waits for the exit (SIGKILL after `limitMs`). */
  async close(limitMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    if (this.child.connected) this.child.send({ cmd: 'close' });
    else this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), limitMs);
    await exited;
    clearTimeout(timer);
  }
}
