import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { EVENT_EXAMPLES } from '../webhooks/event-examples.constants';
import { EVENT_SCHEMA_NAMES } from '../webhooks/event-schemas.constants';
import { EVENT_TYPES } from '../webhooks/event-types.constants';

const ROOT = join(__dirname, '..', '..');

/**
 * The committed openapi.json through a generator other than the client package's
 * (openapi-typescript): @hey-api/openapi-ts, offline, from the npm dependencies. Its
 * `webhooks` section must come out as one payload type per event type, and a body of each type
 * must type-check against it, while a wrong one must not (docs/operations.md#openapi).
 */
describe('openapi.json through an independent generator (@hey-api/openapi-ts)', () => {
  let dir: string;
  let types: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'independent-client-'));
    // In a child process: the generator is an ES module.
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { createClient } = await import('@hey-api/openapi-ts');" +
          'await createClient({ input: process.argv[1], output: process.argv[2],' +
          " plugins: ['@hey-api/typescript'], logs: { level: 'silent' } });",
        join(ROOT, 'openapi.json'),
        join(dir, 'generated'),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    types = readFileSync(join(dir, 'generated', 'types.gen.ts'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The payload type the generator names after a webhook's operation id. */
  const payloadType = (type: (typeof EVENT_TYPES)[number]) =>
    `${EVENT_SCHEMA_NAMES[type].replace(/Event$/, '')}WebhookPayload`;

  it('emits a payload type per event type, and the union of the webhooks', () => {
    for (const type of EVENT_TYPES) {
      expect(types).toContain(`export type ${payloadType(type)} = ${EVENT_SCHEMA_NAMES[type]};`);
    }
    expect(types).toMatch(/export type Webhooks = /);
  });

  it('type-checks a body of every type against its payload type, and refuses a wrong one', () => {
    const sample = [
      `import type { ${EVENT_TYPES.map(payloadType).join(', ')} } from './generated/types.gen';`,
      ...EVENT_TYPES.map(
        (type, i) =>
          `export const body${i}: ${payloadType(type)} = ${JSON.stringify({
            type,
            timestamp: '2026-11-27T10:00:00.000Z',
            data: EVENT_EXAMPLES[type],
          })};`,
      ),
      '// @ts-expect-error -- a lead id is a number.',
      `export const wrong: ${payloadType('lead.converted')} = { type: 'lead.converted', timestamp: '', data: { ...body3.data, lead_id: '7' } };`,
      '// @ts-expect-error -- a call.started body is not a lead.created one.',
      `export const other: ${payloadType('lead.created')} = body4;`,
    ].join('\n');
    writeFileSync(join(dir, 'sample.ts'), sample);
    const program = ts.createProgram([join(dir, 'sample.ts')], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });
});
