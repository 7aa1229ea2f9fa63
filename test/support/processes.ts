import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const DIST = join(__dirname, '..', '..', 'dist');

/** A compiled entrypoint (`main.js`, `worker.js`) running as its own process, with its output kept. */
export class ServiceProcess {
  output = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;

  constructor(entrypoint: 'main.js' | 'worker.js', env: Record<string, string>) {
    this.child = spawn(process.execPath, [join(DIST, entrypoint)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** Resolves with the first match of `pattern` in the output; rejects after `timeoutMs`. */
  async waitForOutput(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`no ${pattern} in output:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Sends SIGTERM and resolves with the exit code. */
  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}
