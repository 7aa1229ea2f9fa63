import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import type { Client } from 'pg';
import { join } from 'node:path';
import { copyTemplate, dropDatabase } from './databases';
import { TEST_DATABASE_URL } from './env';

const DIST = join(__dirname, '..', '..', 'dist');

/**
 * How long a test hook may wait for service processes to start, in ms: a process starts in a
 * second or two, but several starting at once on a busy 2-core machine took over 20 s.
 * {@link ServiceProcess.waitForOutput} waits 10 s less by default, so its own error (with the
 * process's output) comes before the hook's timeout.
 */
export const PROCESS_START_TIMEOUT_MS = 90_000;

/** A compiled entrypoint (`main.js`, `worker.js`) running as its own process, with its output kept. */
export class ServiceProcess {
  output = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private signalled = false;

  /**
   * @param options.expectFailure the test makes the process fail on purpose and asserts its
   *   {@link output}: its exit is not reported on the test's stderr.
   */
  constructor(
    entrypoint: 'main.js' | 'worker.js',
    env: Record<string, string>,
    options: { expectFailure?: boolean } = {},
  ) {
    this.child = spawn(process.execPath, [join(DIST, entrypoint)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        // A process that ends on its own, and not cleanly, says why in the test's output.
        if (!this.signalled && !options.expectFailure && code !== 0) {
          const tail = this.output.split('\n').slice(-40).join('\n');
          process.stderr.write(
            `${entrypoint} exited (${code ?? signal}); its last output:\n${tail}\n`,
          );
        }
        resolve(code);
      }),
    );
  }

  /** Resolves with the first match of `pattern` in the output; rejects after `timeoutMs`. */
  async waitForOutput(
    pattern: RegExp,
    timeoutMs = PROCESS_START_TIMEOUT_MS - 10_000,
  ): Promise<RegExpMatchArray> {
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
    this.signalled = true;
    this.child.kill('SIGTERM');
    return this.exited;
  }

  /** Sends `signal` without waiting. */
  signal(signal: NodeJS.Signals): void {
    this.signalled = true;
    this.child.kill(signal);
  }

  /** Resolves with the exit code once the process has exited. */
  exitCode(): Promise<number | null> {
    return this.exited;
  }
}

/** Runs the compiled operator CLI synchronously with `env` on top of the test environment; returns its JSON. */
export function runCli(env: Record<string, string>, ...args: string[]): Record<string, unknown> {
  const stdout = execFileSync(process.execPath, [join(DIST, 'cli.js'), ...args], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout.toString()) as Record<string, unknown>;
}

/** An account with one campaign, written directly, for tests that drive separate processes. */
export async function givenCampaign(
  db: Client,
  name: string,
): Promise<{ accountId: number; campaignId: number }> {
  const [account] = (await db.query('INSERT INTO account (name) VALUES ($1) RETURNING id', [name]))
    .rows;
  const [campaign] = (
    await db.query('INSERT INTO campaign (account_id, name) VALUES ($1, $2) RETURNING id', [
      account.id,
      name,
    ])
  ).rows;
  return { accountId: account.id as number, campaignId: campaign.id as number };
}

/**
 * A database of its own for a test whose processes need one besides the file's (a second
 * deployment, or a dispatch no other app of the file may touch): a fresh copy of the
 * migrated template. Returns its URL.
 */
export async function freshDatabase(suffix: string): Promise<string> {
  const url = TEST_DATABASE_URL.replace(/\/([^/]+)$/, `/$1_${suffix}`);
  await dropDatabase(url);
  await copyTemplate(url);
  return url;
}
