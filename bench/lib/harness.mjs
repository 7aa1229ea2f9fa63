// The harness of bench/run.mjs: the clock, the log and the notes, and the child processes
// (tracked, and all stopped on exit, error or signal; IPC children forked and asked).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bench/ folder. */
export const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository's root (dist/ is built there). */
export const root = join(benchDir, '..');

/** Milliseconds on CLOCK_MONOTONIC (comparable across the processes of this machine). */
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const log = (message) => process.stderr.write(`bench: ${message}\n`);

/** Runs fn over items with at most `limit` at once; results in item order. */
export async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Anything odd seen during the run (non-2xx, timeouts, log warnings): printed and saved. */
export const notes = [];
export const note = (message) => {
  notes.push(message);
  log(`note: ${message}`);
};

// ---------------------------------------------------------------------------------------------
// Child processes: tracked, and all stopped whatever happens
// ---------------------------------------------------------------------------------------------

const children = new Set();
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
export const running = (child) => child.exitCode === null && child.signalCode === null;

/** Sends `signal`, waits up to timeoutMs for the exit, then SIGKILL. Returns how it ended. */
export async function stopChild(child, signal = 'SIGTERM', timeoutMs = 35_000) {
  if (running(child)) {
    const exited = once(child, 'exit');
    child.kill(signal);
    const timer = sleep(timeoutMs).then(() => 'timeout');
    if ((await Promise.race([exited, timer])) === 'timeout') {
      note(`child ${child.pid} still running ${timeoutMs} ms after ${signal}: killed`);
      child.kill('SIGKILL');
      await exited;
    }
  }
  return { code: child.exitCode, signal: child.signalCode };
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping child processes`);
    process.exit(130);
  });
}

/** Forks an IPC child (`file` relative to bench/) and waits for its { type: 'ready', port }. */
export async function forkReady(file, extraEnv = {}) {
  const child = track(
    fork(join(benchDir, file), [], {
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const ready = new Promise((resolve, reject) => {
    child.once('message', (m) => (m?.type === 'ready' ? resolve(m.port) : reject(new Error(m))));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before ready`)));
  });
  const port = await Promise.race([
    ready,
    sleep(15_000).then(() => {
      throw new Error(`${file} not ready within 15 s`);
    }),
  ]);
  return { child, port };
}

/** Request/answer over an IPC channel, matched by id. */
let nextMessageId = 1;
export function ask(child, message, timeoutMs = 10_000) {
  const id = nextMessageId++;
  return new Promise((resolve, reject) => {
    const onMessage = (answer) => {
      if (answer?.id !== id) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(answer);
    };
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`no answer to ${message.cmd} within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.send({ ...message, id });
  });
}
