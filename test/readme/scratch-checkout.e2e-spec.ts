import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeScratchCheckout } from './scratch-checkout';

describe('the README test’s scratch copy of the checkout', () => {
  let base: string;
  let checkout: string;
  let scratch: string;

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'scratch-checkout-spec-'));
    checkout = join(base, 'checkout');
    scratch = join(base, 'scratch');
    mkdirSync(join(checkout, 'scripts'), { recursive: true });
    mkdirSync(join(checkout, 'node_modules', 'pkg'), { recursive: true });
    mkdirSync(scratch);
    writeFileSync(join(checkout, 'package.json'), '{"name":"x"}\n');
    writeFileSync(join(checkout, '.npmrc'), 'loglevel=silent\n');
    writeFileSync(join(checkout, 'scripts', 'run.mjs'), 'console.log(1)\n');
    execFileSync('git', ['init', '-q'], { cwd: checkout });
    execFileSync('git', ['add', 'package.json', '.npmrc', 'scripts'], { cwd: checkout });
    // What a reader's walk-through through an earlier README left behind, and a local .env.
    writeFileSync(
      join(checkout, 'contacts.csv.import-state.json'),
      '{"version":1,"campaign_id":2,"completed":{"k":{}},"rejected_bytes":0}\n',
    );
    writeFileSync(join(checkout, 'contacts.csv'), 'Mobile\n');
    writeFileSync(join(checkout, '.env'), 'PORT=1\n');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('links the tracked entries and node_modules, and leaves out the files a reader left behind', () => {
    const linked = makeScratchCheckout(checkout, scratch);

    expect(linked).toEqual(['.npmrc', 'node_modules', 'package.json', 'scripts']);
    for (const entry of linked) {
      expect(lstatSync(join(scratch, entry)).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(scratch, entry))).toBe(join(checkout, entry));
    }
    expect(readFileSync(join(scratch, 'scripts', 'run.mjs'), 'utf8')).toBe('console.log(1)\n');
    expect(existsSync(join(scratch, 'contacts.csv.import-state.json'))).toBe(false);
    expect(existsSync(join(scratch, 'contacts.csv'))).toBe(false);
    expect(existsSync(join(scratch, '.env'))).toBe(false);
  });

  it('keeps what a command writes into its working directory out of the checkout', () => {
    makeScratchCheckout(checkout, scratch);
    execFileSync('bash', ['-c', 'echo new > leads.json'], { cwd: scratch });

    expect(readFileSync(join(scratch, 'leads.json'), 'utf8')).toBe('new\n');
    expect(existsSync(join(checkout, 'leads.json'))).toBe(false);
  });

  it('refuses a folder that is not a git checkout, saying why', () => {
    const plain = join(base, 'plain');
    mkdirSync(plain);
    expect(() => makeScratchCheckout(plain, scratch)).toThrow(/scratch copy of the checkout/);
  });
});
