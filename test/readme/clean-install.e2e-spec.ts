/**
 * The Quick start's install (`npm ci`) prints nothing alarming: no peer-dependency conflict
 * (ERESOLVE) and no dependency whose install script is left unreviewed. `npm ci --dry-run`
 * resolves the same tree from the lockfile and prints the same warnings in two seconds,
 * without touching node_modules; CI also checks the output of its real `npm ci` (.ci/run).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** This environment without npm's own variables, as in a reader's fresh terminal. */
function freshEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'),
  );
}

describe('npm ci (the Quick start install)', () => {
  it('prints no warning: no ERESOLVE peer conflict, no unreviewed install script', () => {
    const run = spawnSync(
      'npm',
      ['ci', '--dry-run', '--loglevel=warn', '--no-audit', '--no-fund'],
      {
        cwd: ROOT,
        env: freshEnvironment(),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = `${run.stdout}${run.stderr}`;
    expect({ status: run.status, output }).toEqual({ status: 0, output: expect.any(String) });
    const alarming = output.split('\n').filter((line) => /warn|ERESOLVE|ERR!/i.test(line));
    expect(alarming).toEqual([]);
  }, 60_000);

  it('decides on every locked package that has an install script, in package.json allowScripts', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean; optional?: boolean }>;
    };
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    const decided = new Set(
      Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(?<=.)@[^@/]*$/, '')),
    );
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path.includes('node_modules/') && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect([...new Set(withScripts)].filter((name) => !decided.has(name))).toEqual([]);
  });
});
