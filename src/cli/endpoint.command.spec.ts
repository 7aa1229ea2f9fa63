import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInputError } from '../common/domain-error';
import type { EndpointTransformations, TransformationState } from '../webhooks';
import { cliErrorLine } from './cli-io';
import {
  EndpointSetTransformationCommand,
  readTransformationFile,
  transformationRefusal,
} from './endpoint.command';

const CODE = 'function handler(webhook) {\n  return webhook;\n}\n';

function state(version: number | null): TransformationState {
  return {
    endpoint_id: 7,
    current:
      version === null
        ? null
        : {
            version,
            created_at: '2026-11-29T10:00:00.000Z',
            created_by: 'cli',
            restored_from: null,
            bytes: Buffer.byteLength(CODE),
            code: CODE,
          },
    versions: [],
  };
}

describe('endpoint set-transformation (docs/cli.md#commands)', () => {
  let dir: string;
  let printed: string[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'set-transformation-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  beforeEach(() => {
    printed = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
  });
  afterEach(() => jest.restoreAllMocks());

  async function file(name: string, content: string | Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  /** The command on a fake service: the version in force is `inForce`, a save makes `saved`. */
  function command(inForce: number | null, save?: () => Promise<TransformationState>) {
    const service = {
      state: jest.fn(async () => state(inForce)),
      save: jest.fn(save ?? (async () => state((inForce ?? 0) + 1))),
      clear: jest.fn(async () => state(null)),
    };
    const runner = new EndpointSetTransformationCommand(
      service as unknown as EndpointTransformations,
    );
    return { runner, service };
  }

  describe('reading --file', () => {
    it('reads a file of at most 64 KiB as UTF-8', async () => {
      expect(await readTransformationFile(await file('ok.js', CODE))).toBe(CODE);
      const limit = `// ${'é'.repeat(32 * 1024 - 3)}\n`;
      expect(Buffer.byteLength(limit)).toBeLessThanOrEqual(64 * 1024);
      expect(await readTransformationFile(await file('limit.js', limit))).toBe(limit);
    });

    it('refuses a missing file, a directory, one over 64 KiB and one that is not UTF-8, naming it', async () => {
      await expect(readTransformationFile(join(dir, 'nope.js'))).rejects.toThrow(
        new InvalidInputError(`--file ${join(dir, 'nope.js')}: no such file`),
      );
      await expect(readTransformationFile(dir)).rejects.toThrow(`--file ${dir} is not a file`);
      const big = await file('big.js', `// ${'x'.repeat(64 * 1024)}\n`);
      await expect(readTransformationFile(big)).rejects.toThrow(
        `--file ${big} is 65 KiB; a transformation is at most 64 KiB`,
      );
      const latin1 = await file('latin1.js', Buffer.from([0x2f, 0x2f, 0xe9, 0x0a]));
      await expect(readTransformationFile(latin1)).rejects.toThrow('is not UTF-8 text');
    });
  });

  it('saves the file as a new version by the CLI and prints it with the one it replaced', async () => {
    const { runner, service } = command(2);
    const path = await file('hook.js', CODE);
    await runner.run(['7'], { file: path });
    expect(service.save).toHaveBeenCalledWith(7, CODE, { type: 'cli' });
    expect(JSON.parse(printed.join(''))).toEqual({
      endpoint_id: 7,
      version: 3,
      previous_version: 2,
      bytes: Buffer.byteLength(CODE),
      created_by: 'cli',
      created_at: '2026-11-29T10:00:00.000Z',
    });
  });

  it('clears the transformation, printing the version that was in force', async () => {
    const { runner, service } = command(4);
    await runner.run(['7'], { clearTransformation: true });
    expect(service.clear).toHaveBeenCalledWith(7, { type: 'cli' });
    expect(service.save).not.toHaveBeenCalled();
    expect(JSON.parse(printed.join(''))).toEqual({
      endpoint_id: 7,
      version: null,
      previous_version: 4,
    });
  });

  it('refuses code the check refused with one line naming the file, line and column, printing nothing', async () => {
    const { runner } = command(1, async () => {
      throw InvalidInputError.field(
        'transformation',
        "line 2, column 9: SyntaxError: expecting ';'\n    at <eval>:2:9",
      );
    });
    const path = await file('broken.js', 'function handler(webhook) {\n  return = 1;\n}\n');
    const error = await runner.run(['7'], { file: path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(cliErrorLine(error)).toBe(
      `error: the transformation in ${path} was not saved: line 2, column 9: SyntaxError: expecting ';'`,
    );
    expect(printed).toEqual([]);
  });

  it('refuses a bad endpoint id, both options or neither before touching anything', async () => {
    const { runner, service } = command(null);
    await expect(runner.run(['seven'], { clearTransformation: true })).rejects.toThrow(
      'endpoint_id must be a positive integer, got "seven"',
    );
    await expect(runner.run(['7'], { file: 'a.js', clearTransformation: true })).rejects.toThrow(
      '--file and --clear-transformation cannot be used together',
    );
    await expect(runner.run(['7'], {})).rejects.toThrow(
      'give --file PATH, or --clear-transformation',
    );
    expect(service.state).not.toHaveBeenCalled();
  });

  it('keeps only the first line of a refusal, without the service’s field name', () => {
    const refusal = transformationRefusal(
      'x.js',
      InvalidInputError.field('transformation', 'is 65 KiB; at most 64 KiB\nmore'),
    );
    expect(refusal.message).toBe(
      'the transformation in x.js was not saved: is 65 KiB; at most 64 KiB',
    );
    expect(refusal.field).toBeUndefined();
  });
});
