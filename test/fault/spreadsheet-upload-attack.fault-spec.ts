/**
 * One account attacks the spreadsheet upload while another uses the dashboard
 * (docs/security.md#spreadsheet-uploads): shared-strings bombs five at once, an archive entry
 * of 200 MiB of zeros, a CSV of a million blank lines, and twelve clients sending their file a
 * byte a second, all against one real API process, over and over for the attack's length.
 * The other account's reads must stay answered (p99 under 500 ms, none failed), the readiness
 * probe too, the process must stay alive, no spreadsheet file may be left on its disk, and the
 * leads the public API takes meanwhile are all delivered (the suite's usual invariants).
 */
import { connect, type Socket } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support/service-process';
import { runScenario, Scenario } from './support/scenario';
import {
  PHONE_SHEET,
  sharedStringsBomb,
  sharedStringsXml,
  workbook,
  zeros,
  zip,
} from '../support/hostile-files';

afterEach(() => Scenario.cleanupAll());

const ATTACK_MS = 25_000;
const MiB = 1024 * 1024;

interface Session {
  cookie: string;
  csrf: string;
}

async function signIn(baseUrl: string, email: string, password: string): Promise<Session> {
  const response = await fetch(`${baseUrl}/dashboard/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': 'sign-in' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
  const cookie = response.headers.getSetCookie()[0].split(';')[0];
  const body = (await response.json()) as { csrf_token: string };
  return { cookie, csrf: body.csrf_token };
}

/** p-th percentile of `values` (nearest rank). */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

describe('spreadsheet upload attack', () => {
  it(
    'one account sends hostile files and slow uploads; another account’s reads stay answered and the process alive',
    () =>
      runScenario('spreadsheet-attack', __filename, async (scenario) => {
        const dep = scenario.deployment();
        const api = await dep
          .spawnApi({ RATE_LIMIT_SIGN_IN_PER_IP: '1000000', LOG_LEVEL: 'warn' })
          .ready();
        const worker = dep.spawnWorker();
        await Promise.all([worker.ready(), dep.setUp()]);
        // The public API goes on too: leads uploaded during the attack are all delivered.
        const leadUploads = (async () => {
          for (let i = 0; i < 5; i++) {
            await dep.upload(api, 200);
            await new Promise((r) => setTimeout(r, 3_000));
          }
        })();
        const cli = (...args: string[]) => runCli(dep.directEnv(), scenario.workDir, ...args);
        const accounts = await Promise.all([
          cli('account', 'create', '--name', 'attacker'),
          cli('account', 'create', '--name', 'bystander'),
        ]);
        const [attackerCampaign, bystanderCampaign] = await Promise.all(
          accounts.map((account) =>
            cli('campaign', 'create', '--account', String(account.id), '--name', 'leads'),
          ),
        );
        const users = await Promise.all(
          accounts.map((account, i) =>
            cli(
              'user',
              'create',
              '--account',
              String(account.id),
              '--email',
              `user${i}@example.com`,
              '--role',
              'admin',
            ),
          ),
        );
        const [attacker, bystander] = await Promise.all(
          users.map((user) => signIn(api.baseUrl, String(user.email), String(user.password))),
        );
        const uploadUrl = `${api.baseUrl}/dashboard/api/campaigns/${String(attackerCampaign.id)}/spreadsheet-imports`;
        const [bomb, zeroEntry] = await Promise.all([
          workbook(PHONE_SHEET, sharedStringsBomb(1_000_000, 1_000)),
          zip([
            { name: 'xl/worksheets/sheet1.xml', data: zeros(200 * MiB) },
            { name: 'xl/sharedStrings.xml', data: sharedStringsXml(['phone']) },
          ]),
        ]);
        const blankLines = Buffer.from(`phone\n${'\n'.repeat(1_048_000)}+14155550100\n`);
        const memory = (field: 'VmRSS' | 'VmHWM') =>
          Number(
            new RegExp(`${field}:\\s+(\\d+) kB`).exec(
              readFileSync(`/proc/${api.pid}/status`, 'utf8'),
            )?.[1] ?? 0,
          ) / 1024;
        const rssBefore = memory('VmRSS');
        const until = Date.now() + ATTACK_MS;
        const answers = new Map<string, number>();
        const count = (key: string) => answers.set(key, (answers.get(key) ?? 0) + 1);

        // Two slow clients holding the account's two upload slots keep them for up to
        // HTTP_REQUEST_TIMEOUT_MS (60 s), longer than the attack: its other uploads are then all
        // 429, as designed. So the slow clients join once a bomb has been answered (or after
        // 5 s), and the bombs are sure to reach the parser at least once.
        let bombAnswered!: () => void;
        const firstBombAnswer = new Promise<void>((resolve) => (bombAnswered = resolve));
        const uploadLoop = async (name: string, body: Buffer) => {
          while (Date.now() < until) {
            const response = await fetch(`${uploadUrl}?file_name=${name}`, {
              method: 'POST',
              headers: {
                Cookie: attacker.cookie,
                'X-CSRF-Token': attacker.csrf,
                'Content-Type': 'application/octet-stream',
              },
              body,
            }).catch((error: Error) => ({ status: `error ${error.message}` }));
            count(`${name} → ${response.status}`);
            if (name === 'bomb.xlsx' && response.status !== 429) bombAnswered();
            if (response.status === 429) await new Promise((r) => setTimeout(r, 200));
          }
        };
        const slowClient = async () => {
          await Promise.race([firstBombAnswer, new Promise((r) => setTimeout(r, 5_000))]);
          while (Date.now() < until) {
            const socket: Socket = connect(Number(new URL(api.baseUrl).port), '127.0.0.1');
            socket.on('error', () => undefined);
            socket.write(
              [
                `POST ${new URL(uploadUrl).pathname}?file_name=slow.csv HTTP/1.1`,
                'Host: 127.0.0.1',
                `Cookie: ${attacker.cookie}`,
                `X-CSRF-Token: ${attacker.csrf}`,
                'Content-Type: application/octet-stream',
                'Content-Length: 100000',
                '',
                '',
              ].join('\r\n'),
            );
            const closed = new Promise((resolve) => socket.on('close', resolve));
            while (Date.now() < until && !socket.destroyed) {
              socket.write('p');
              await Promise.race([closed, new Promise((r) => setTimeout(r, 1_000))]);
            }
            socket.destroy();
            count('slow upload ended');
          }
        };
        const latencies: number[] = [];
        const failures: string[] = [];
        const bystanderLoop = async () => {
          while (Date.now() < until) {
            for (const path of ['/dashboard/api/campaigns', '/health/ready']) {
              const started = performance.now();
              const response = await fetch(`${api.baseUrl}${path}`, {
                headers: { Cookie: bystander.cookie },
              }).catch((error: Error) => ({ status: 0, text: async () => error.message }));
              latencies.push(performance.now() - started);
              const text = await response.text();
              if (response.status !== 200) failures.push(`${path} → ${response.status} ${text}`);
              else if (
                path.includes('campaigns') &&
                !text.includes(`"id":${String(bystanderCampaign.id)}`)
              ) {
                failures.push(`${path} did not list the bystander's campaign`);
              }
            }
            await new Promise((r) => setTimeout(r, 50));
          }
        };

        await Promise.all([
          ...Array.from({ length: 5 }, () => uploadLoop('bomb.xlsx', bomb)),
          uploadLoop('zeros.xlsx', zeroEntry),
          uploadLoop('blank.csv', blankLines),
          ...Array.from({ length: 12 }, () => slowClient()),
          bystanderLoop(),
          leadUploads,
        ]);

        const p99 = percentile(latencies, 99);
        scenario.figure(
          `bystander: ${latencies.length} reads, p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
        );
        scenario.figure(
          `attacker's answers: ${[...answers].map(([key, n]) => `${key} ×${n}`).join(', ')}`,
        );
        const alive = api.running;
        scenario.figure(
          `API process memory: ${rssBefore.toFixed(0)} MiB before the attack, peak ${memory('VmHWM').toFixed(0)} MiB`,
        );
        const ownDirs = readdirSync(join(tmpdir(), 'campaign-api-spreadsheets')).filter((name) =>
          name.startsWith(`${api.pid}-`),
        );
        // Slow clients that just left may still be unwinding: give them a moment.
        await new Promise((r) => setTimeout(r, 1_000));
        const leftFiles = ownDirs.flatMap((name) =>
          readdirSync(join(tmpdir(), 'campaign-api-spreadsheets', name), {
            recursive: true,
            encoding: 'utf8',
          }),
        );

        await scenario.finish({ deliveryDeadlineMs: 30_000 });
        scenario.expect(alive, 'the API process died during the attack');
        scenario.expect(
          failures.length === 0,
          `bystander failures: ${failures.slice(0, 5).join('; ')}`,
        );
        scenario.expect(p99 < 500, `bystander p99 ${p99.toFixed(0)} ms, over 500 ms`);
        scenario.expect(latencies.length > 50, `only ${latencies.length} bystander reads`);
        scenario.expect(
          [...answers.keys()].some((key) => key.startsWith('bomb.xlsx → 422')),
          'no shared-strings bomb was refused with 422',
        );
        scenario.expect(
          [...answers.keys()].every((key) => !/→ (5\d\d|error)/.test(key)),
          `an attacking upload got a server error: ${[...answers.keys()].join(', ')}`,
        );
        scenario.expect(leftFiles.length === 0, `spreadsheet files left: ${leftFiles.join(', ')}`);
      }),
    240_000,
  );
});
