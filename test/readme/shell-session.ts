/**
 * One bash session, like a terminal a reader types the README into: variables, exports and
 * the working directory carry from one block to the next. Each block runs with
 * `set -euo pipefail`, its output kept in files; long-running blocks run as background jobs
 * of the same session (so they see its variables), each in a process group of its own.
 *
 * Linux only: cleaning up reads /proc to find every process of the session.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a finished foreground block printed. */
export interface BlockResult {
  stdout: string;
  stderr: string;
}

/** A block running in the background. */
export interface BackgroundJob {
  name: string;
  /** Process group of the job (the pid of its subshell). */
  pgid: number;
  /** Where its stdout and stderr go. */
  stdoutFile: string;
  stderrFile: string;
  /** Written with the block's exit status when it ends. */
  statusFile: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** Live (not zombie) processes of /proc whose field `field` (4 = pgrp, 5 = session) is `id`. */
function liveProcesses(field: 4 | 5, id: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && fields[0] !== 'X' && Number(fields[field - 2]) === id) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Waits until `alive()` is empty, sending SIGTERM first and SIGKILL after `graceMs`. */
async function terminate(alive: () => number[], graceMs: number): Promise<void> {
  signalAll(alive(), 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive().length > 0 && Date.now() < deadline) await sleep(50);
  if (alive().length === 0) return;
  signalAll(alive(), 'SIGKILL');
  const killDeadline = Date.now() + 5_000;
  while (alive().length > 0 && Date.now() < killDeadline) await sleep(50);
}

/** Thrown when a block fails: names the block and carries what it printed. */
export class BlockFailure extends Error {}

/** A bash session fed block by block; see the file comment. */
export class ShellSession {
  /** Temporary folder of the block scripts and their output. */
  readonly dir = mkdtempSync(join(tmpdir(), 'readme-test-'));
  private readonly bash: ChildProcess;
  private readonly jobs = new Map<string, BackgroundJob>();
  private stdout = '';
  private stderr = '';
  private exitCode: number | null | undefined;
  private sequence = 0;

  /** Starts `bash` in `cwd` with exactly `env`, in a session of its own. */
  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.bash = spawn('bash', ['--norc', '--noprofile'], {
      cwd,
      env,
      detached: true, // its own session: cleanup finds every process by session id
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.bash.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.bash.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.bash.on('exit', (code, signal) => (this.exitCode = code ?? (signal ? 128 : null)));
    this.bash.stdin!.on('error', () => undefined); // writes after an early exit are reported below
    // Job control: every background job gets a process group of its own, to stop it alone.
    // When the shell ends (its stdin closed, also by the death of this process), it stops
    // the jobs still running; a closed stdout must end it through that trap, not kill it.
    this.send('set -m');
    this.send(`trap 'exit 141' PIPE`);
    this.send(`trap 'for g in $(jobs -p); do kill -TERM -- "-$g" 2>/dev/null || true; done' EXIT`);
  }

  private send(command: string): void {
    this.bash.stdin!.write(`${command}\n`);
  }

  /** Sends `command`, then waits for the line it prints starting with `@@<tag> `. */
  private async request(command: string, tag: string, timeoutMs: number): Promise<string> {
    const prefix = `@@${tag} `;
    this.send(command);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.stdout.split('\n').find((l) => l.startsWith(prefix));
      if (line !== undefined) return line.slice(prefix.length);
      if (this.exitCode !== undefined) {
        throw new BlockFailure(`the shell exited with status ${this.exitCode}`);
      }
      if (Date.now() > deadline) throw new BlockFailure(`no answer within ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  private files(id: string) {
    const base = join(this.dir, id);
    return {
      script: `${base}.sh`,
      stdout: `${base}.out`,
      stderr: `${base}.err`,
      status: `${base}.status`,
    };
  }

  /**
   * Runs `script` in the session with `set -euo pipefail` and stdin from /dev/null.
   * @throws BlockFailure when it exits non-zero (the session ends, as `set -e` ends a
   * script) or takes longer than `timeoutMs`.
   */
  async run(script: string, timeoutMs: number): Promise<BlockResult> {
    const id = `block-${++this.sequence}`;
    const f = this.files(id);
    writeFileSync(f.script, script);
    try {
      await this.request(
        `set -euo pipefail; source ${quote(f.script)} > ${quote(f.stdout)} 2> ${quote(f.stderr)} < /dev/null; set +euo pipefail; printf '@@${id} done\\n'`,
        id,
        timeoutMs,
      );
    } catch (error) {
      throw new BlockFailure(
        `${(error as Error).message}\n--- stdout:\n${read(f.stdout)}\n--- stderr:\n${read(f.stderr)}${this.stderr ? `\n--- shell:\n${this.stderr}` : ''}`,
      );
    }
    return { stdout: read(f.stdout), stderr: read(f.stderr) };
  }

  /**
   * Starts `script` as a background job named `name`, stopping an earlier job of that name
   * first (a restart), and resolves once `ready` holds: an `http(s)://` URL answers 2xx, a
   * `host:port` accepts connections, or `output:<text>` appeared in the job's output. `ready`
   * is expanded by the session first, so it may use the session's variables.
   *
   * @throws BlockFailure when the job ends, or is not ready within `timeoutMs`.
   */
  async startBackground(
    name: string,
    script: string,
    ready: string,
    timeoutMs: number,
  ): Promise<BackgroundJob> {
    await this.stop(name);
    const id = `bg-${name}-${++this.sequence}`;
    const f = this.files(id);
    writeFileSync(f.script, script);
    const answer = await this.request(
      `( set +e; ( set -euo pipefail; source ${quote(f.script)} ) > ${quote(f.stdout)} 2> ${quote(f.stderr)} < /dev/null; echo $? > ${quote(f.status)} ) & printf '@@${id} %s %s\\n' "$!" "${ready}"`,
      id,
      10_000,
    );
    const space = answer.indexOf(' ');
    const job: BackgroundJob = {
      name,
      pgid: Number(answer.slice(0, space)),
      stdoutFile: f.stdout,
      stderrFile: f.stderr,
      statusFile: f.status,
    };
    this.jobs.set(name, job);
    await this.waitReady(job, answer.slice(space + 1), timeoutMs);
    return job;
  }

  private async waitReady(job: BackgroundJob, ready: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const probe = async (): Promise<boolean> => {
      if (/^https?:\/\//.test(ready)) {
        try {
          return (await fetch(ready, { signal: AbortSignal.timeout(1_000) })).ok;
        } catch {
          return false;
        }
      }
      if (ready.startsWith('output:')) {
        return this.output(job.name).includes(ready.slice('output:'.length));
      }
      const [, host, port] = /^(.*):(\d+)$/.exec(ready) ?? [];
      if (!port) throw new BlockFailure(`ready=${ready}: not a URL, host:port or output:text`);
      return new Promise<boolean>((resolve) => {
        const socket = connect({ host, port: Number(port) });
        socket.setTimeout(1_000);
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
        socket.once('timeout', () => (socket.destroy(), resolve(false)));
      });
    };
    // A block may end at once and leave its process running (a trailing `&`): it failed only
    // if it ended non-zero, or nothing of its process group is left.
    const ended = () => {
      const status = read(job.statusFile).trim();
      return status !== '' && (status !== '0' || liveProcesses(4, job.pgid).length === 0)
        ? status
        : undefined;
    };
    for (;;) {
      if (await probe()) return;
      const status = ended();
      const failure = status
        ? `ended with status ${status} before ${ready}`
        : Date.now() > deadline
          ? `not ready (${ready}) within ${timeoutMs} ms`
          : undefined;
      if (failure) {
        throw new BlockFailure(
          `background ${job.name} ${failure}\n--- output:\n${this.output(job.name)}`,
        );
      }
      await sleep(100);
    }
  }

  /** Everything the background job `name` printed so far (stdout, then stderr). */
  output(name: string): string {
    const job = this.jobs.get(name);
    return job ? read(job.stdoutFile) + read(job.stderrFile) : '';
  }

  /** What the background job `name` printed on stdout so far. */
  stdoutOf(name: string): string {
    const job = this.jobs.get(name);
    if (!job) throw new BlockFailure(`no background job named ${name}`);
    return read(job.stdoutFile);
  }

  /** Stops the background job `name` (SIGTERM to its group, SIGKILL after 15 s), if running. */
  async stop(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) return;
    await terminate(() => liveProcesses(4, job.pgid), 15_000);
  }

  /**
   * Stops every background job, then every other process of the session and the shell;
   * removes the temporary folder unless `keepFiles`.
   */
  async close(keepFiles = false): Promise<void> {
    for (const name of this.jobs.keys()) await this.stop(name);
    const pid = this.bash.pid;
    if (pid !== undefined) {
      this.bash.stdin!.end();
      await terminate(() => liveProcesses(5, pid), 5_000);
    }
    if (!keepFiles) rmSync(this.dir, { recursive: true, force: true });
  }
}
