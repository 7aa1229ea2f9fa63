import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { inheritedEnv, SERVICE_DIST } from './config';

/** How a process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** A SIGTERM stop: what the scenario asserts (exit 0) and prints (how long it took). */
export interface StopRecord {
  process: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From SIGTERM to exit. */
  ms: number;
  /** The process did not exit within the harness's limit and was SIGKILLed. */
  forced: boolean;
}

const MAX_OUTPUT_CHARS = 4_000_000;

/**
 * A compiled entrypoint of the service (`node <dist>/main.js` or `node <dist>/worker.js`)
 * running as its own process, with its output kept for assertions and diagnostics.
 */
export class ServiceProcess {
  output = '';
  readonly startedAt = Date.now();
  exit?: ExitInfo;
  /** `http://127.0.0.1:<port>` once an API process listens. */
  baseUrl = '';
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private droppedChars = 0;

  constructor(
    readonly name: string,
    readonly entrypoint: 'main.js' | 'worker.js',
    readonly env: Record<string, string>,
    cwd: string,
  ) {
    this.child = spawn(process.execPath, [join(SERVICE_DIST, entrypoint)], {
      env: { ...inheritedEnv(), ...env },
      cwd, // not the repository: no .env file is read
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.output += chunk.toString();
      if (this.output.length > MAX_OUTPUT_CHARS) {
        const cut = this.output.length - MAX_OUTPUT_CHARS / 2;
        this.droppedChars += cut;
        this.output = this.output.slice(cut);
      }
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal, at: Date.now() };
        resolve(this.exit);
      }),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Resolves with the first match of `pattern`; rejects on timeout or when the process exits first. */
  async waitForOutput(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (this.exit) {
        throw new Error(
          `${this.name} exited (${describeExit(this.exit)}) before printing ${pattern}:\n${this.tail(30)}`,
        );
      }
      if (Date.now() > deadline) {
        throw new Error(`${this.name}: no ${pattern} within ${timeoutMs} ms:\n${this.tail(30)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Waits until the API listens (sets {@link baseUrl}) or the worker runs. */
  async ready(timeoutMs = 45_000): Promise<this> {
    if (this.entrypoint === 'main.js') {
      this.baseUrl = (
        await this.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/, timeoutMs)
      )[1];
    } else {
      await this.waitForOutput(/Delivery worker running/, timeoutMs);
    }
    return this;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /**
   * SIGTERM, then waits for the exit; SIGKILLs after `limitMs` (reported as `forced`).
   * The service's own shutdown deadline is 30 s, so the default limit leaves it room.
   */
  async terminate(limitMs = 40_000): Promise<StopRecord> {
    const sent = Date.now();
    if (this.exit) {
      return {
        process: this.name,
        code: this.exit.code,
        signal: this.exit.signal,
        ms: 0,
        forced: false,
      };
    }
    this.child.kill('SIGTERM');
    let forced = false;
    const timer = setTimeout(() => {
      forced = true;
      this.child.kill('SIGKILL');
    }, limitMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return { process: this.name, code: exit.code, signal: exit.signal, ms: exit.at - sent, forced };
  }

  /** SIGKILL and wait for the exit. */
  async kill(): Promise<ExitInfo> {
    this.signal('SIGKILL');
    return this.exited;
  }

  /** The last `lines` lines of output, each cut to 400 characters. */
  tail(lines = 15): string {
    const all = this.output.trimEnd().split('\n');
    const shown = all
      .slice(-lines)
      .map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line));
    const skipped = all.length - shown.length;
    return [
      `--- ${this.name} (${this.entrypoint}, pid ${this.pid}, ${this.exit ? describeExit(this.exit) : 'running'})` +
        (skipped > 0 || this.droppedChars > 0 ? `, last ${shown.length} lines` : ''),
      ...shown.map((line) => `    ${line}`),
    ].join('\n');
  }
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

/**
 * Runs the compiled operator CLI (`node <dist>/cli.js …`) with `env` (direct database and
 * Redis URLs: set-up never goes through a proxy) and returns its one JSON document.
 */
export function runCli(
  env: Record<string, string>,
  cwd: string,
  ...args: string[]
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(SERVICE_DIST, 'cli.js'), ...args],
      { env: { ...inheritedEnv(), ...env }, cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new Error(`cli ${args.join(' ')} failed (${error.message.split('\n')[0]}):\n${stderr}`),
          );
          return;
        }
        try {
          resolve(JSON.parse(stdout) as Record<string, unknown>);
        } catch {
          reject(new Error(`cli ${args.join(' ')} printed no JSON:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}
