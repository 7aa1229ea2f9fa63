/**
 * The README's command sequences run as written, top to bottom, as a reader on a fresh clone
 * would type them: every ```bash block of README.md, in document order, in one bash session
 * (variables and the working directory carry over) with a clean environment (none of the test
 * environment's settings, no npm_* variables), against a database that does not exist yet
 * (`npm start` creates and migrates it). Each block runs with `set -euo pipefail` and must
 * exit 0.
 *
 * The session starts in a scratch copy of the checkout (scratch-checkout.ts: links to what git
 * tracks, node_modules and dist), never in the checkout itself, and its `TMPDIR` (where the
 * walk-throughs' `mktemp -d` folders go) is the test's own: files a reader's walk-through left in
 * the checkout, such as a CSV importer's resume state, cannot change the result, and the test
 * leaves nothing there. To prove it, the test plants such leftovers in the checkout (only names
 * not there already, removed afterwards) and checks that the walk-throughs never touched them.
 *
 * Markers: an HTML comment on the line right before a block's opening fence.
 *
 *   <!-- readme-test: skip <reason> -->
 *       The ```bash block is not run (only for what cannot run here: installing packages,
 *       Docker, the whole test suite). The reason is required.
 *   <!-- readme-test: background <name> ready=<http URL | host:port | output:text> -->
 *       The ```bash block starts a long-running process (a reader's other terminal, or a
 *       trailing `&`): it runs as a background job of the session, and the next block waits
 *       until the URL answers 2xx, the port accepts connections or the text appears in the
 *       job's output. `ready=` is expanded by the session (`${PORT:-3000}` works). A later
 *       background block with the same name first stops this one (a restart). Every job is
 *       stopped at the end, also when a block fails.
 *   <!-- readme-test: output -->
 *   <!-- readme-test: output eventually -->
 *   <!-- readme-test: output <name> -->
 *       The ```json block shows output to check: what the last ```bash block printed on
 *       stdout (with `eventually`, that block is run again until it matches, for outputs that
 *       settle a moment later), or lines the background job <name> prints (waited for). Each
 *       JSON document shown (one, or one per line) must match a document printed: same keys,
 *       same values, except values that change on every run (random ids, times, durations,
 *       secrets: see json-match.ts), whose type only is compared, and folders `mktemp -d` drew
 *       (`/tmp/tmp.Wn3kX1bq7Z`), which may differ. `127.0.0.1:3000` and
 *       `127.0.0.1:4000` in the README's output stand for the ports the test chose.
 *
 * The test picks free ports for the service (`PORT`, the README's `${PORT:-3000}`) and the
 * webhook receivers (`RECEIVER_PORT`, `${RECEIVER_PORT:-4000}`, and the ed25519 one's
 * `ED25519_RECEIVER_PORT`, `${ED25519_RECEIVER_PORT:-4001}`) and its own `QUEUE_PREFIX`,
 * so it runs beside other tests and CI jobs on the same PostgreSQL and Redis. It runs the
 * dist/ that global-setup built (`npm start` would build it if stale).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase } from '../support/databases';
import { TEST_DATABASE_URL } from '../support/env';
import { unmatchedDocuments, jsonDocuments } from './json-match';
import { parseReadme, type ShellStep } from './readme-markdown';
import { makeScratchCheckout } from './scratch-checkout';
import { ShellSession, type BlockResult } from './shell-session';

const ROOT = join(__dirname, '..', '..');
const STEPS = parseReadme(readFileSync(join(ROOT, 'README.md'), 'utf8'));
/**
 * Files earlier versions of the walk-throughs wrote into the checkout (git-ignored), as a
 * reader's checkout may still hold them: a resume state of an import into another campaign
 * (the importer refuses to run on it), a stale CSV and its rejected rows, logs.
 */
const LEFTOVERS: Record<string, string> = {
  'contacts.csv': 'Mobile\n+14155550100\n',
  'contacts.csv.import-state.json':
    '{"version":1,"campaign_id":999999,"completed":{"left-behind":{"index":0,"rows":1,"valid":1,"invalid":0,"duplicates":0}},"rejected_bytes":0}\n',
  'contacts.csv.rejected.csv': 'line,field,message\n',
  'leads.json': '{"left":"behind"}\n',
  'endpoint.json': '{"id":999999,"secret":"whsec_left_behind"}\n',
  'api-1.log': 'left behind\n',
  'api-2.log': 'left behind\n',
};

/** Longest one foreground block may run. */
const BLOCK_TIMEOUT_MS = 60_000;
/** Longest a background block may take to be ready, and an output to appear. */
const READY_TIMEOUT_MS = 30_000;
const OUTPUT_TIMEOUT_MS = 15_000;

/** A TCP port nothing listens on right now (the kernel's pick). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The environment of a reader's fresh terminal: this process's, without the variables the
 * service reads (the ones `.env.example` lists, except `REDIS_URL`), without npm's, plus
 * `extra`.
 */
function readerEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const serviceVariables = new Set(
    [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]),
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD') continue;
    if (serviceVariables.has(key) && key !== 'REDIS_URL') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

const where = (step: { line: number }) => `README.md:${step.line}`;

describe('README.md', () => {
  it('marks only what cannot run here as skipped, with a reason', () => {
    const shells = STEPS.filter((s): s is ShellStep => s.type === 'shell');
    const skipped = shells.filter((s) => s.mode.kind === 'skip');
    expect(shells.length).toBeGreaterThan(8);
    // npm ci, installing Node.js 24, and Cleaning up (it would drop what the test still uses).
    expect(skipped.length).toBeLessThanOrEqual(3);
    for (const step of skipped) {
      expect(step.mode.kind === 'skip' && step.mode.reason.length).toBeGreaterThan(10);
    }
    expect(STEPS.filter((s) => s.type === 'output').length).toBeGreaterThanOrEqual(3);
  });

  describe('run top to bottom', () => {
    const databaseUrl = TEST_DATABASE_URL.replace(/\/([^/?]+)$/, '/$1_readme');
    const scratch = mkdtempSync(join(tmpdir(), 'readme-test-checkout-'));
    const planted = Object.keys(LEFTOVERS).filter((file) => !existsSync(join(ROOT, file)));
    let session: ShellSession | undefined;
    let failed = false;

    afterAll(async () => {
      await session?.close(failed);
      if (failed)
        process.stderr.write(`README test files kept in ${session?.dir} and ${scratch}\n`);
      else rmSync(scratch, { recursive: true, force: true });
      for (const file of planted) rmSync(join(ROOT, file), { force: true });
      await dropDatabase(databaseUrl);
    }, 60_000);

    it('runs every bash block as written in a scratch copy, and prints what the README shows', async () => {
      failed = true;
      for (const file of planted) writeFileSync(join(ROOT, file), LEFTOVERS[file]);
      const checkout = join(scratch, 'checkout');
      const temporary = join(scratch, 'tmp');
      mkdirSync(checkout);
      mkdirSync(temporary);
      makeScratchCheckout(ROOT, checkout);
      await dropDatabase(databaseUrl); // fresh: `npm start` creates and migrates it
      const [port, receiverPort, ed25519Port] = [
        await freePort(),
        await freePort(),
        await freePort(),
      ];
      session = new ShellSession(
        checkout,
        readerEnvironment({
          DATABASE_URL: databaseUrl,
          QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-readme`,
          PORT: String(port),
          RECEIVER_PORT: String(receiverPort),
          ED25519_RECEIVER_PORT: String(ed25519Port),
          TMPDIR: temporary,
        }),
      );
      const shell = session;
      const localise = (text: string) =>
        text
          .replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)
          .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`)
          .replaceAll('127.0.0.1:4001', `127.0.0.1:${ed25519Port}`);

      let last: { step: ShellStep; result: BlockResult } | undefined;
      let ran = 0;
      let checked = 0;
      for (const step of STEPS) {
        try {
          if (step.type === 'shell') {
            last = undefined;
            if (step.mode.kind === 'skip') continue;
            if (step.mode.kind === 'background') {
              await shell.startBackground(
                step.mode.name,
                step.script,
                step.mode.ready,
                READY_TIMEOUT_MS,
              );
            } else {
              last = { step, result: await shell.run(step.script, BLOCK_TIMEOUT_MS) };
            }
            ran++;
            continue;
          }
          const expected = localise(step.text);
          const deadline = Date.now() + OUTPUT_TIMEOUT_MS;
          let problems: string[];
          if (step.source.kind === 'background') {
            const name = step.source.name;
            while (
              (problems = unmatchedDocuments(expected, shell.stdoutOf(name))).length > 0 &&
              Date.now() < deadline
            ) {
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
          } else {
            if (!last) throw new Error('an output marker needs a ```bash block run right before');
            problems = unmatchedDocuments(expected, last.result.stdout);
            while (problems.length > 0 && step.source.eventually && Date.now() < deadline) {
              await new Promise((resolve) => setTimeout(resolve, 200));
              last.result = await shell.run(last.step.script, BLOCK_TIMEOUT_MS);
              problems = unmatchedDocuments(expected, last.result.stdout);
            }
          }
          if (problems.length > 0) {
            const context =
              step.source.kind === 'background'
                ? `\n--- ${step.source.name} output:\n${shell.output(step.source.name).slice(-4000)}`
                : `\n--- stderr:\n${last!.result.stderr}`;
            throw new Error(
              `the output differs from the README:\n${problems.join('\n')}${context}`,
            );
          }
          checked++;
        } catch (error) {
          (error as Error).message = `${where(step)}: ${(error as Error).message}`;
          throw error;
        }
      }

      // The README's claims about the runs beyond the JSON it shows.
      const deliveries = jsonDocuments(shell.stdoutOf('receiver')) as Array<{
        verified: boolean;
        type: string;
        received_at: string;
        data: { status?: string };
      }>;
      // Three leads, then ten more under the throttle: one bulk event per upload; then lead 42's
      // two status changes on the ordered endpoint, in the order emitted.
      expect(deliveries.map((d) => d.type).sort()).toEqual([
        ...Array<string>(13).fill('lead.created'),
        'lead.status_changed',
        'lead.status_changed',
        'leads.bulk_created',
        'leads.bulk_created',
      ]);
      expect(deliveries.every((d) => d.verified)).toBe(true);
      const statuses = deliveries
        .filter((d) => d.type === 'lead.status_changed')
        .map((d) => d.data.status);
      expect(statuses).toEqual(['contacted', 'qualified']);
      // The throttled eleven came at most 2 a second: ten intervals of at least half a second,
      // less the throttle's 50 ms tolerance each.
      const throttled = deliveries.slice(4, 15).map((d) => Date.parse(d.received_at));
      expect(throttled).toHaveLength(11);
      expect(throttled.at(-1)! - throttled[0]).toBeGreaterThanOrEqual(10 * 450);
      // `npm start` ends with the banner naming its URLs on the port it is bound to.
      const origin = `http://127.0.0.1:${port}`;
      for (const line of [
        `  API        ${origin}/api/v1`,
        `  Dashboard  ${origin}/dashboard/`,
        `  API docs   ${origin}/api/docs`,
      ]) {
        expect(shell.output('api')).toContain(`${line}\n`);
      }
      // Nothing was written into the checkout: the leftovers planted there are as they were.
      for (const file of planted) {
        expect([file, readFileSync(join(ROOT, file), 'utf8')]).toEqual([file, LEFTOVERS[file]]);
      }
      expect(ran).toBe(STEPS.filter((s) => s.type === 'shell' && s.mode.kind !== 'skip').length);
      expect(checked).toBe(STEPS.filter((s) => s.type === 'output').length);
      failed = false;
    }, 300_000); // every walk-through, three 10,000-lead uploads among them, on a busy machine
  });
});
