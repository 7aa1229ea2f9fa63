import {
  TransformationSandbox,
  type TransformationInput,
  type TransformationOutcome,
} from './index';

/**
 * docs/webhooks.md#transformations: what a handler is given and what its result becomes. These
 * run in the calling thread (`inThread`), so they test the engine and the output rules without a
 * build; `hostile-code.spec.ts` runs hostile code against the real worker threads.
 */

/**
 * A lead.created event's data, with the fields of `src/webhooks/event-examples.constants.ts`
 * (written out: this feature imports no other, its tests included).
 */
const LEAD = {
  id: 19801,
  campaign_id: 1,
  phone: '+12123744203',
  first_name: 'Alva',
  last_name: 'Treutel',
  email: 'alva.treutel@example.com',
  company: 'Howe, Konopelski and Wyman',
  title: 'Operations Manager',
  tags: ['open-house'],
  source: 'crm-sync',
  import_id: 'da0d9e06-a528-4f56-97cb-2ce1284d80c6',
  created_at: '2026-11-22T23:10:54.279Z',
};

const LEAD_CREATED_BODY = JSON.stringify({
  type: 'lead.created',
  timestamp: '2026-11-22T23:10:54.279Z',
  data: LEAD,
});

/** A Svix-shaped input: a lead.created delivery to a CRM endpoint. */
function input(overrides: Partial<TransformationInput> = {}): TransformationInput {
  return {
    method: 'POST',
    url: 'https://crm.example.com/hooks/leads',
    headers: { 'x-source': 'campaign-api' },
    payloadJson: LEAD_CREATED_BODY,
    eventType: 'lead.created',
    ...overrides,
  };
}

let sandbox: TransformationSandbox;
let keys = 0;

/** Runs `code` under a key of its own. */
function run(code: string, given = input()): Promise<TransformationOutcome> {
  keys += 1;
  return sandbox.run({ key: `spec:${keys}`, code }, given);
}

function request(outcome: TransformationOutcome) {
  if (outcome.kind !== 'request') throw new Error(`not a request: ${JSON.stringify(outcome)}`);
  return outcome;
}

beforeAll(() => {
  sandbox = new TransformationSandbox({ inThread: true });
  sandbox.onModuleInit();
});

afterAll(async () => {
  await sandbox.onModuleDestroy();
});

describe('TransformationSandbox: mapping a delivery', () => {
  it('maps a lead.created event to a CRM contact, keeping method, url and headers', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  const lead = webhook.payload.data;
  webhook.payload = {
    properties: { email: lead.email, firstname: lead.first_name, lastname: lead.last_name, phone: lead.phone, company: lead.company, jobtitle: lead.title },
  };
  return webhook;
}`),
    );
    const lead = LEAD;
    expect(outcome).toEqual({
      kind: 'request',
      method: 'POST',
      url: 'https://crm.example.com/hooks/leads',
      headers: { 'x-source': 'campaign-api' },
      body: JSON.stringify({
        properties: {
          email: lead.email,
          firstname: lead.first_name,
          lastname: lead.last_name,
          phone: lead.phone,
          company: lead.company,
          jobtitle: lead.title,
        },
      }),
      contentType: 'application/json',
    });
  });

  it('gives the handler Svix’s shape: method, url, headers, payload and event_type', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  webhook.payload = { keys: Object.keys(webhook), method: webhook.method, url: webhook.url, headers: webhook.headers, type: webhook.payload.type, event_type: webhook.event_type };
  return webhook;
}`),
    );
    expect(JSON.parse(outcome.body)).toEqual({
      keys: ['method', 'url', 'headers', 'payload', 'event_type'],
      method: 'POST',
      url: 'https://crm.example.com/hooks/leads',
      headers: { 'x-source': 'campaign-api' },
      type: 'lead.created',
      event_type: 'lead.created',
    });
  });

  it('changes the method (any case in, upper case out), the url and the headers', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  webhook.method = 'patch';
  webhook.url = 'https://crm.example.com/contacts/' + webhook.payload.data.id;
  webhook.headers = { authorization: 'Bearer abc', 'x-lead': String(webhook.payload.data.id) };
  return webhook;
}`),
    );
    expect(outcome).toMatchObject({
      method: 'PATCH',
      url: `https://crm.example.com/contacts/${LEAD.id}`,
      headers: { authorization: 'Bearer abc', 'x-lead': String(LEAD.id) },
      body: LEAD_CREATED_BODY,
    });
  });

  it('sends a string payload as is, with the content-type header it returns (any case)', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  webhook.headers['Content-Type'] = 'application/x-www-form-urlencoded';
  webhook.payload = 'email=' + encodeURIComponent(webhook.payload.data.email);
  return webhook;
}`),
    );
    expect(outcome.body).toBe(`email=${encodeURIComponent(LEAD.email)}`);
    expect(outcome.contentType).toBe('application/x-www-form-urlencoded');
  });

  it('sends a string payload without a content-type header as text/plain; charset=utf-8', async () => {
    const outcome = request(
      await run(`function handler(webhook) { webhook.payload = 'héllo ✓'; return webhook; }`),
    );
    expect(outcome).toMatchObject({ body: 'héllo ✓', contentType: 'text/plain; charset=utf-8' });
  });

  it('sends any other JSON value as its JSON text, null included', async () => {
    const outcome = request(
      await run(`function handler(webhook) { webhook.payload = null; return webhook; }`),
    );
    expect(outcome).toMatchObject({ body: 'null', contentType: 'application/json' });
    const array = request(
      await run(
        `function handler(webhook) { webhook.payload = [1, 'two', { three: 3 }]; return webhook; }`,
      ),
    );
    expect(array.body).toBe('[1,"two",{"three":3}]');
  });

  it('cancels the delivery when the handler returns null', async () => {
    expect(await run('function handler(webhook) { return null; }')).toEqual({ kind: 'cancelled' });
  });

  it('waits for an async handler', async () => {
    const outcome = request(
      await run(
        `async function handler(webhook) { await null; webhook.payload = { later: true }; return webhook; }`,
      ),
    );
    expect(outcome.body).toBe('{"later":true}');
  });

  it('returns the headers in an object without a prototype, __proto__ an ordinary name', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  webhook.headers = JSON.parse('{"__proto__": "x", "constructor": "y"}');
  return webhook;
}`),
    );
    expect(Object.getPrototypeOf(outcome.headers)).toBeNull();
    expect(Object.keys(outcome.headers)).toEqual(['__proto__', 'constructor']);
    expect(outcome.headers['__proto__']).toBe('x');
  });
});

describe('TransformationSandbox: shape errors', () => {
  const shape = async (body: string) => {
    const outcome = await run(`function handler(webhook) {\n${body}\n}`);
    if (outcome.kind !== 'error') throw new Error(`not an error: ${JSON.stringify(outcome)}`);
    expect(outcome.error.kind).toBe('shape');
    return outcome.error.message;
  };

  it.each([
    ['return undefined;', 'the handler must return the webhook object or null, not undefined'],
    ['return 42;', 'the handler must return the webhook object or null, not a number'],
    ['return [webhook];', 'the handler must return the webhook object or null, not an array'],
    [
      'return new Date(0);',
      'the handler must return the webhook object or null, not an object of a class',
    ],
    ["webhook.method = 'GET'; return webhook;", 'method must be POST, PUT or PATCH, not GET'],
    ['webhook.method = 1; return webhook;', 'method must be POST, PUT or PATCH, not a number'],
    ['delete webhook.url; return webhook;', 'url must be a string, not undefined'],
    [
      "webhook.url = '/relative'; return webhook;",
      'url must be an absolute http or https URL, not "/relative"',
    ],
    [
      "webhook.url = 'ftp://example.com/x'; return webhook;",
      'url must be an absolute http or https URL, not "ftp://example.com/x"',
    ],
    [
      "webhook.url = 'https://example.com/' + 'a'.repeat(2048); return webhook;",
      'url is longer than 2048 characters',
    ],
    ['webhook.headers = null; return webhook;', 'headers must be an object of strings, not null'],
    [
      "webhook.headers = ['a']; return webhook;",
      'headers must be an object of strings, not an array',
    ],
    [
      'webhook.headers = {}; for (let i = 0; i < 51; i++) webhook.headers["x-" + i] = "v"; return webhook;',
      'headers has 51 entries; at most 50',
    ],
    [
      "webhook.headers = { ['x'.repeat(101)]: 'v' }; return webhook;",
      'header name "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" is longer than 100 characters',
    ],
    [
      "webhook.headers = { 'x-n': 1 }; return webhook;",
      'header "x-n" must be a string, not a number',
    ],
    [
      "webhook.headers = { 'x-long': 'v'.repeat(2049) }; return webhook;",
      'header "x-long" is longer than 2048 characters',
    ],
    [
      'webhook.payload = undefined; return webhook;',
      'payload is undefined: return a string or a JSON value (null sends the JSON text null)',
    ],
    [
      'webhook.payload = () => 1; return webhook;',
      'payload must be a string or a JSON value, not a function',
    ],
    ["webhook.payload = 'a\\uD800b'; return webhook;", 'the payload is not valid UTF-8 text'],
  ])('refuses `%s`: %s', async (body, message) => {
    expect(await shape(body)).toBe(message);
  });

  it('refuses a body over 256 KiB, saying its size', async () => {
    const outcome = await run(
      `function handler(webhook) { webhook.payload = 'é'.repeat(150 * 1024); return webhook; }`,
    );
    expect(outcome).toEqual({
      kind: 'error',
      error: {
        kind: 'output_too_large',
        message: 'the result is 300 KiB; at most 256 KiB',
        line: null,
        column: null,
      },
    });
  });

  it('accepts a body of exactly 256 KiB', async () => {
    const outcome = request(
      await run(
        `function handler(webhook) { webhook.payload = 'x'.repeat(256 * 1024); return webhook; }`,
      ),
    );
    expect(outcome.body).toHaveLength(256 * 1024);
  });

  it('escapes a lone surrogate inside a JSON payload, as JSON.stringify does', async () => {
    const outcome = request(
      await run(
        `function handler(webhook) { webhook.payload = { text: 'a\\uD800' }; return webhook; }`,
      ),
    );
    expect(outcome.body).toBe('{"text":"a\\ud800"}');
  });
});

describe('TransformationSandbox: failures', () => {
  it('reports the line and column of a throw on line 3', async () => {
    const outcome = await run(`function handler(webhook) {
  const lead = webhook.payload.lead;
  return lead.email.toLowerCase();
}`);
    expect(outcome).toEqual({
      kind: 'error',
      error: {
        kind: 'throw',
        message: "TypeError: cannot read property 'email' of undefined",
        line: 3,
        // QuickJS points at the property access: the '.' of `.email`.
        column: 14,
      },
    });
  });

  it('reports a syntax error with its line and column', async () => {
    const outcome = await run('function handler(webhook) {\n  return webhook +;\n}');
    expect(outcome).toEqual({
      kind: 'error',
      error: {
        kind: 'syntax',
        message: "SyntaxError: unexpected token in expression: ';'",
        line: 2,
        column: 19,
      },
    });
  });

  it('reports code without a handler function', async () => {
    expect(await run('const handler = 1;')).toMatchObject({
      kind: 'error',
      error: {
        kind: 'no_handler',
        message: 'the code must define a function named handler; handler is undefined',
      },
    });
    expect(await run('var handler = {};')).toMatchObject({
      error: {
        kind: 'no_handler',
        message: 'the code must define a function named handler; handler is an object',
      },
    });
  });

  it('reports a thrown string as "Uncaught …"', async () => {
    expect(await run("function handler() { throw 'no lead'; }")).toMatchObject({
      error: { kind: 'throw', message: 'Uncaught no lead', line: null },
    });
  });

  it('refuses code over 64 KiB before running it', async () => {
    const code = `function handler(w) { return w; }\n//${'x'.repeat(64 * 1024)}`;
    expect(await run(code)).toMatchObject({
      error: { kind: 'code_too_large', message: 'the code is 65 KiB; at most 64 KiB' },
    });
  });

  it('keeps a message to one line of at most 400 characters', async () => {
    const outcome = await run(
      "function handler() { throw new Error('first\\nsecond ' + 'x'.repeat(1000)); }",
    );
    if (outcome.kind !== 'error') throw new Error('not an error');
    expect(outcome.error.message).toMatch(/^Error: first second x+…$/);
    expect(outcome.error.message).toHaveLength(400);
  });
});

describe('TransformationSandbox: determinism', () => {
  it.each([
    ['Math.random()', 'TypeError: Math.random is not available in a transformation'],
    ['Date.now()', 'TypeError: Date.now is not available in a transformation'],
    ['new Date()', 'TypeError: new Date() without a value is not available in a transformation'],
    ['Date()', 'TypeError: Date() is not available in a transformation'],
    [
      'new (new Date(0).constructor)()',
      'TypeError: new Date() without a value is not available in a transformation',
    ],
  ])('throws on %s, at the caller’s line', async (expression, message) => {
    expect(await run(`function handler(webhook) {\n  return ${expression};\n}`)).toEqual({
      kind: 'error',
      error: { kind: 'throw', message, line: 2, column: expect.any(Number) },
    });
  });

  it('still builds dates from a value', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  webhook.payload = { at: new Date(webhook.payload.timestamp).getTime(), iso: new Date(0).toISOString() };
  return webhook;
}`),
    );
    expect(JSON.parse(outcome.body)).toEqual({
      at: Date.parse('2026-11-22T23:10:54.279Z'),
      iso: '1970-01-01T00:00:00.000Z',
    });
  });

  it('gives the same output for the same input, call after call', async () => {
    const code = {
      key: 'spec:same',
      code: `function handler(webhook) { webhook.payload = { id: webhook.payload.data.id, n: [3, 1, 2].sort() }; return webhook; }`,
    };
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await sandbox.run(code, input()));
    expect(new Set(outcomes.map((outcome) => JSON.stringify(outcome))).size).toBe(1);
  });

  it('freezes every intrinsic reachable from globalThis, and globalThis once handler is defined', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  // globalThis itself leads to the customer's own handler, which is not frozen.
  const seen = new Set([globalThis]);
  const todo = Object.getOwnPropertyNames(globalThis).filter((name) => name !== 'handler').map((name) => globalThis[name]);
  todo.push(Object.getPrototypeOf(function* () {}), Object.getPrototypeOf(async function () {}), Object.getPrototypeOf([][Symbol.iterator]()), Object.getPrototypeOf(new Map().entries()));
  const open = [];
  while (todo.length > 0) {
    const value = todo.pop();
    if (!((typeof value === 'object' && value !== null) || typeof value === 'function') || seen.has(value)) continue;
    seen.add(value);
    if (!Object.isFrozen(value)) open.push(String(value.name ?? value));
    todo.push(Object.getPrototypeOf(value));
    for (const key of Reflect.ownKeys(value)) {
      const { value: inner, get, set } = Object.getOwnPropertyDescriptor(value, key);
      todo.push(inner, get, set);
    }
  }
  webhook.payload = { reached: seen.size, open, global: Object.isFrozen(globalThis) };
  return webhook;
}`),
    );
    const { reached, open, global } = JSON.parse(outcome.body) as {
      reached: number;
      open: string[];
      global: boolean;
    };
    expect(open).toEqual([]);
    expect(reached).toBeGreaterThan(300);
    expect(global).toBe(true);
  });

  it('has neither Atomics, SharedArrayBuffer, WeakRef nor FinalizationRegistry', async () => {
    const outcome = request(
      await run(`function handler(webhook) {
  webhook.payload = [typeof Atomics, typeof SharedArrayBuffer, typeof WeakRef, typeof FinalizationRegistry];
  return webhook;
}`),
    );
    expect(JSON.parse(outcome.body)).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  });
});

describe('TransformationSandbox.check', () => {
  const samples = [input()];

  it('accepts code that may throw on some data (the throw depends on the data)', async () => {
    expect(
      await sandbox.check('function handler(w) { return w.payload.nope.x; }', samples),
    ).toBeNull();
  });

  it('accepts code whose trial result has the wrong shape', async () => {
    expect(await sandbox.check('function handler(w) { return 1; }', samples)).toBeNull();
  });

  it('refuses a syntax error, a missing handler, a top-level throw and an oversized script', async () => {
    expect(await sandbox.check('function handler( {', samples)).toMatchObject({ kind: 'syntax' });
    expect(await sandbox.check('function other() {}', samples)).toMatchObject({
      kind: 'no_handler',
    });
    expect(await sandbox.check("throw new Error('at load')", samples)).toMatchObject({
      kind: 'throw',
      message: 'Error: at load',
      line: 1,
    });
    expect(await sandbox.check(`//${'x'.repeat(1024 * 1024)}`, samples)).toMatchObject({
      kind: 'code_too_large',
      message: 'the code is 1 MiB; at most 64 KiB',
    });
  });

  it('refuses code whose trial run breaks a budget', async () => {
    expect(await sandbox.check('function handler(w) { while (true) {} }', samples)).toMatchObject({
      kind: 'timeout',
      message: 'ran longer than 50 ms',
      line: 1,
    });
    expect(
      await sandbox.check(
        "function handler(w) { w.payload = 'x'.repeat(300 * 1024); return w; }",
        samples,
      ),
    ).toMatchObject({ kind: 'output_too_large' });
  });
});
