import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Piscina } from 'piscina';
import {
  TransformationBusyError,
  TransformationSandbox,
  type TransformationFailure,
  type TransformationInput,
  type TransformationOutcome,
} from './index';

/**
 * Hostile customer code against the real sandbox (docs/security.md#transformation-sandbox): the
 * worker threads of the compiled build, as production runs them. Each case asserts the exact
 * failure, that the threads are still there, and that a normal transformation right after it
 * still works. dist/ is built first when it is stale, as the e2e setup does
 * (test/support/global-setup.ts).
 */

const PAYLOAD = {
  type: 'lead.created',
  timestamp: '2026-11-22T23:10:54.279Z',
  data: { id: 19801, email: 'alva.treutel@example.com', first_name: 'Alva' },
};

function input(): TransformationInput {
  return {
    method: 'POST',
    url: 'https://crm.example.com/hooks/leads',
    headers: { 'x-source': 'campaign-api' },
    payloadJson: JSON.stringify(PAYLOAD),
    eventType: 'lead.created',
  };
}

const NORMAL = {
  key: 'hostile:normal',
  code: 'function handler(webhook) {\n  webhook.payload = { ok: webhook.payload.data.id };\n  return webhook;\n}\n',
};

let sandbox: TransformationSandbox;
let keys = 0;

/**
 * `call`, told to come back while the sandbox's budget for slow code is used up
 * (`TransformationBusyError`), as a worker's delivery is put back; at most about 12 s of waits.
 * Unknown code counts as slow until it has run, and a loaded machine makes calls slow.
 */
async function served(call: () => Promise<TransformationOutcome>): Promise<TransformationOutcome> {
  let waitedMs = 0;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof TransformationBusyError) || waitedMs > 12_000) throw error;
      waitedMs += error.waitMs;
      await new Promise((resolve) => setTimeout(resolve, error.waitMs));
    }
  }
}

function run(code: string): Promise<TransformationOutcome> {
  keys += 1;
  const key = `hostile:${keys}`;
  return served(() => sandbox.run({ key, code }, input()));
}

function failureOf(outcome: TransformationOutcome): TransformationFailure {
  if (outcome.kind !== 'error') throw new Error(`not an error: ${JSON.stringify(outcome)}`);
  return outcome.error;
}

/**
 * The process and its threads still serve: a normal transformation right after works (within
 * a few waits, {@link served}, on a machine loaded enough to make its call count as slow).
 */
async function expectStillWorking(): Promise<void> {
  const outcome = await served(() => sandbox.run(NORMAL, input()));
  expect(outcome).toMatchObject({ kind: 'request', body: '{"ok":19801}' });
  await new Promise((resolve) => setImmediate(resolve));
  expect(sandbox.usesWorkers).toBe(true);
}

beforeAll(() => {
  execFileSync(process.execPath, [join(__dirname, '../../scripts/build-if-needed.cjs')], {
    stdio: 'inherit',
  });
  sandbox = new TransformationSandbox();
  sandbox.onModuleInit();
}, 600_000);

afterAll(async () => {
  await sandbox.onModuleDestroy();
});

it('runs in worker threads of the compiled build', async () => {
  expect(sandbox.usesWorkers).toBe(true);
  await expectStillWorking();
});

describe('hostile code: CPU, memory, stack and size', () => {
  it.each<[string, string, Partial<TransformationFailure>]>([
    [
      'while (true) {}',
      'function handler(webhook) {\n  while (true) {}\n}',
      { kind: 'timeout', message: 'ran longer than 50 ms', line: 1 },
    ],
    [
      'unbounded array growth (8 MiB rows pushed without end)',
      'function handler(webhook) {\n  const rows = [];\n  for (;;) rows.push(new Float64Array(1 << 20));\n}',
      { kind: 'memory', message: 'used more than 16 MiB of memory', line: 3 },
    ],
    [
      'deep recursion',
      'function handler(webhook) {\n  function deeper(n) { return deeper(n + 1) + 1; }\n  return deeper(0);\n}',
      {
        kind: 'stack',
        message: 'called functions too deeply: the stack overflowed',
        line: 2,
      },
    ],
    [
      'recursion in the parser (an eval of 30,000 nested parentheses)',
      "function handler(webhook) {\n  return eval('('.repeat(30000) + '1' + ')'.repeat(30000));\n}",
      { kind: 'stack', message: 'called functions too deeply: the stack overflowed' },
    ],
    [
      'new Array(2**31) filled',
      'function handler(webhook) {\n  webhook.payload = new Array(2 ** 31).fill(0);\n  return webhook;\n}',
      { kind: 'memory', message: 'used more than 16 MiB of memory', line: 2 },
    ],
    [
      'new Array(2**31) returned as the payload (serialised)',
      'function handler(webhook) {\n  webhook.payload = new Array(2 ** 31);\n  return webhook;\n}',
      { kind: 'output_too_large', message: 'the result is at least 2048 MiB; at most 256 KiB' },
    ],
    [
      'a 50 MiB string',
      "function handler(webhook) {\n  webhook.payload = 'x'.repeat(50 * 1024 * 1024);\n  return webhook;\n}",
      { kind: 'memory', message: 'used more than 16 MiB of memory', line: 2 },
    ],
    [
      'a 50 MiB body (one 500-character string, 100,000 times)',
      "function handler(webhook) {\n  webhook.payload = { rows: new Array(100000).fill('x'.repeat(500)) };\n  return webhook;\n}",
      { kind: 'output_too_large', message: 'the result is at least 257 KiB; at most 256 KiB' },
    ],
    [
      'a 10 MiB string payload',
      "function handler(webhook) {\n  webhook.payload = 'x'.repeat(10 * 1024 * 1024);\n  return webhook;\n}",
      { kind: 'output_too_large', message: 'the result is at least 10 MiB; at most 256 KiB' },
    ],
    [
      'a native loop that never checks the deadline (indexOf over a length of 2^53)',
      'function handler(webhook) {\n  return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1);\n}',
      { kind: 'timeout', message: 'ran longer than 50 ms' },
    ],
  ])('%s', async (_name, code, expected) => {
    expect(failureOf(await run(code))).toMatchObject(expected);
    await expectStillWorking();
  });

  it('keeps the process’s memory bounded however much the code allocates', async () => {
    const code =
      'function handler(webhook) {\n  const rows = [];\n  for (let i = 0; i < 60; i++) rows.push(new Uint8Array(8e6));\n  return webhook;\n}';
    const before = process.memoryUsage().rss;
    for (let call = 0; call < 5; call += 1) {
      expect(failureOf(await run(code))).toMatchObject({ kind: 'memory' });
    }
    // Each call asked for 480 MB; a thread's engine never holds more than 128 MiB.
    expect(process.memoryUsage().rss - before).toBeLessThan(
      sandbox.threadCount * 160 * 1024 * 1024,
    );
    await expectStillWorking();
  });

  it('a 1 MiB script: refused by check and by run, before it runs', async () => {
    const code = `function handler(webhook) { return webhook; }\n/*${'x'.repeat(1024 * 1024)}*/`;
    const expected = {
      kind: 'code_too_large',
      message: 'the code is 1 MiB; at most 64 KiB',
      line: null,
      column: null,
    };
    expect(await sandbox.check(code, [input()])).toEqual(expected);
    expect(await run(code)).toEqual({ kind: 'error', error: expected });
    await expectStillWorking();
  });

  it('check refuses code whose trial run breaks a budget, but not one that throws', async () => {
    expect(await sandbox.check('function handler(w) { for (;;) {} }', [input()])).toMatchObject({
      kind: 'timeout',
    });
    expect(
      await sandbox.check('function handler(w) { throw new Error("only some data") }', [input()]),
    ).toBeNull();
    await expectStillWorking();
  });
});

describe('hostile code: escaping to the host, I/O and timers', () => {
  it.each<[string, string, Partial<TransformationFailure>]>([
    [
      "globalThis.constructor.constructor('return process')()",
      "function handler(webhook) {\n  return globalThis.constructor.constructor('return process')();\n}",
      { kind: 'throw', message: "ReferenceError: 'process' is not defined", line: 2 },
    ],
    [
      "import('fs')",
      "async function handler(webhook) {\n  const fs = await import('fs');\n  return webhook;\n}",
      { kind: 'throw', message: "ReferenceError: could not load module 'fs'" },
    ],
    [
      "import fs from 'fs'",
      "import fs from 'fs';\nfunction handler(webhook) {\n  return webhook;\n}",
      { kind: 'syntax', line: 1 },
    ],
    [
      "fetch('http://…')",
      "function handler(webhook) {\n  return fetch('http://169.254.169.254/latest/meta-data/');\n}",
      { kind: 'throw', message: "ReferenceError: 'fetch' is not defined", line: 2 },
    ],
    [
      "require('fs')",
      "function handler(webhook) {\n  return require('fs').readFileSync('/etc/passwd', 'utf8');\n}",
      { kind: 'throw', message: "ReferenceError: 'require' is not defined", line: 2 },
    ],
    [
      'Atomics.wait',
      'function handler(webhook) {\n  Atomics.wait(new Int32Array(new SharedArrayBuffer(16)), 0, 0);\n}',
      { kind: 'throw', message: "ReferenceError: 'Atomics' is not defined", line: 2 },
    ],
    [
      'setTimeout',
      'function handler(webhook) {\n  setTimeout(() => {}, 10);\n  return webhook;\n}',
      { kind: 'throw', message: "ReferenceError: 'setTimeout' is not defined", line: 2 },
    ],
  ])('%s', async (_name, code, expected) => {
    expect(failureOf(await run(code))).toMatchObject(expected);
    await expectStillWorking();
  });
});

describe('hostile code: state between calls and endpoints', () => {
  const TAMPER = `function handler(webhook) {
  const read = () => ({ polluted: ({}).polluted === undefined ? null : ({}).polluted, mapped: [1, 2].map((x) => x * 2) });
  const seen = { before: read() };
  Object.prototype.polluted = 'yes';
  Array.prototype.map = function () { return ['hijacked']; };
  try { Object.defineProperty(Object.prototype, 'polluted', { value: 'yes' }); } catch (error) { seen.defineProperty = String(error); }
  try { Object.setPrototypeOf(Array.prototype, { map: () => ['hijacked'] }); } catch (error) { seen.setPrototypeOf = String(error); }
  seen.after = read();
  webhook.payload = seen;
  return webhook;
}`;
  const UNTOUCHED = {
    before: { polluted: null, mapped: [2, 4] },
    defineProperty: 'TypeError: object is not extensible',
    setPrototypeOf: 'TypeError: object is not extensible',
    after: { polluted: null, mapped: [2, 4] },
  };

  it('tampering with Object.prototype and Array.prototype.map: not seen by the next call of the same key nor by another key', async () => {
    const tamper = { key: 'hostile:tamper', code: TAMPER };
    for (let call = 0; call < 3; call += 1) {
      const outcome = await sandbox.run(tamper, input());
      if (outcome.kind !== 'request') throw new Error(JSON.stringify(outcome));
      expect(JSON.parse(outcome.body)).toEqual(UNTOUCHED);
    }
    const other = await run(
      'function handler(webhook) {\n  webhook.payload = { polluted: ({}).polluted ?? null, mapped: [1, 2].map((x) => x * 2) };\n  return webhook;\n}',
    );
    expect(other).toMatchObject({ kind: 'request', body: '{"polluted":null,"mapped":[2,4]}' });
    await expectStillWorking();
  });

  it('tampering in strict mode fails with a TypeError', async () => {
    expect(
      failureOf(
        await run(
          "'use strict';\nfunction handler(webhook) {\n  Object.prototype.polluted = 1;\n}",
        ),
      ),
    ).toMatchObject({ kind: 'throw', message: 'TypeError: object is not extensible', line: 3 });
    expect(
      failureOf(
        await run(
          "'use strict';\nfunction handler(webhook) {\n  Array.prototype.map = () => [];\n}",
        ),
      ),
    ).toMatchObject({ kind: 'throw', message: "TypeError: 'map' is read-only", line: 3 });
    await expectStillWorking();
  });

  it('a global the code defines is read-only once it is loaded: a call cannot leave it changed', async () => {
    const counter = {
      key: 'hostile:counter',
      code: 'var calls = 0;\nfunction handler(webhook) {\n  calls += 1;\n  webhook.payload = { calls };\n  return webhook;\n}',
    };
    for (let call = 0; call < 3; call += 1) {
      expect(await sandbox.run(counter, input())).toMatchObject({ body: '{"calls":0}' });
    }
  });
});

describe('hostile code: return values', () => {
  it('a return value whose getter throws', async () => {
    const code =
      "function handler(webhook) {\n  return { get method() { throw new Error('no method'); }, url: webhook.url, headers: {}, payload: 1 };\n}";
    expect(failureOf(await run(code))).toEqual({
      kind: 'throw',
      message: 'Error: no method',
      line: 2,
      column: expect.any(Number),
    });
    await expectStillWorking();
  });

  it('a Proxy return value: each field read once, under the budget', async () => {
    const code = `function handler(webhook) {
  let reads = 0;
  return new Proxy(webhook, {
    get(target, key) {
      if (key !== 'url') return target[key];
      reads += 1;
      return 'https://crm.example.com/read-' + reads;
    },
  });
}`;
    expect(await run(code)).toMatchObject({
      kind: 'request',
      url: 'https://crm.example.com/read-1',
    });
    expect(
      failureOf(
        await run(
          'function handler(webhook) {\n  return new Proxy(webhook, { get() { for (;;) {} } });\n}',
        ),
      ),
    ).toMatchObject({ kind: 'timeout', message: 'ran longer than 50 ms', line: 2 });
    await expectStillWorking();
  });

  it('a lone-surrogate (not UTF-8) payload', async () => {
    expect(
      failureOf(
        await run(
          "function handler(webhook) {\n  webhook.payload = 'ok \\uD800';\n  return webhook;\n}",
        ),
      ),
    ).toEqual({
      kind: 'shape',
      message: 'the payload is not valid UTF-8 text',
      line: null,
      column: null,
    });
    await expectStillWorking();
  });
});

describe('hostile code: the process', () => {
  it('a worker thread that dies mid-call: the call fails, the next one runs on its replacement', async () => {
    const pool = (sandbox as unknown as { pool: Piscina }).pool;
    const slow = run(
      'function handler(webhook) {\n  for (let i = 0; i < 1e9; i++) {}\n  return webhook;\n}',
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all(pool.threads.map((thread) => thread.terminate()));
    expect(failureOf(await slow)).toEqual({
      kind: 'throw',
      message: "the transformation's worker stopped",
      line: null,
      column: null,
    });
    await expectStillWorking();
  });

  it('100 keys each with a slow transformation called at once: the excess is refused at once, a fast key still goes first', async () => {
    const threads = sandbox.threadCount;
    const fast = { key: 'hostile:fast', code: 'function handler(webhook) { return webhook; }' };
    // Known fast: its last call took well under 5 ms.
    expect(await sandbox.run(fast, input())).toMatchObject({ kind: 'request' });
    expect(await sandbox.run(fast, input())).toMatchObject({ kind: 'request' });

    const settled: string[] = [];
    let timerFired = -1;
    setTimeout(() => {
      timerFired = settled.length;
    }, 0);
    const slowCode =
      'function handler(webhook) {\n  let sum = 0;\n  for (let i = 0; i < 1e6; i++) sum += i;\n  webhook.payload = { sum };\n  return webhook;\n}';
    const slow = Array.from({ length: 100 }, (_, i) =>
      sandbox.run({ key: `hostile:slow:${i}`, code: slowCode }, input()).then(
        (outcome) => {
          settled.push('slow');
          return outcome;
        },
        (error: unknown) => {
          settled.push('busy');
          throw error;
        },
      ),
    );
    const quick = sandbox.run(fast, input()).then((outcome) => {
      settled.push('fast');
      return outcome;
    });
    const results = await Promise.allSettled(slow);
    expect(await quick).toMatchObject({ kind: 'request', body: JSON.stringify(PAYLOAD) });

    const refused = results.filter((result) => result.status === 'rejected');
    const accepted = results.length - refused.length;
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(threads * 16);
    for (const result of refused) {
      const error = (result as PromiseRejectedResult).reason as TransformationBusyError;
      expect(error).toBeInstanceOf(TransformationBusyError);
      // As long as the calls ahead take at the slow lane's share of the threads: 1 to 10 s.
      expect(error.waitMs).toBeGreaterThanOrEqual(250);
      expect(error.waitMs).toBeLessThanOrEqual(10_000);
    }
    // Refused at once: every refusal came before any accepted call ended.
    expect(settled.slice(0, refused.length).every((kind) => kind === 'busy')).toBe(true);
    // The fast key waited for no more than the slow calls already running when it came.
    const slowBeforeFast = settled.indexOf('fast') - refused.length;
    expect(slowBeforeFast).toBeLessThanOrEqual(threads);
    expect(slowBeforeFast).toBeLessThan(accepted);
    // The event loop kept turning while the threads were busy.
    expect(timerFired).toBeGreaterThanOrEqual(0);
    expect(timerFired).toBeLessThan(settled.length);
    for (const result of results) {
      if (result.status === 'fulfilled') {
        expect(['request', 'error']).toContain(result.value.kind);
        if (result.value.kind === 'error') expect(result.value.error.kind).toBe('timeout');
      }
    }
    await expectStillWorking();
  });
});
