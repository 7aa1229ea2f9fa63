/**
 * The README test's working directory: a scratch copy of the checkout, so that nothing a reader
 * left in their own checkout (files of an earlier walk-through such as a CSV importer's resume
 * state, a `.env`, logs) can change the test's result.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Made by the install and the build, not tracked by git, and needed by the README's commands. */
export const BUILD_OUTPUTS = ['node_modules', 'dist'] as const;

/**
 * Fills the empty folder `into` with one symbolic link per top-level entry of `root` that git
 * tracks, plus the {@link BUILD_OUTPUTS} `root` has. Untracked top-level files and folders of
 * `root` are left out. Node.js and npm follow the links (a script's own path resolves into
 * `root`), so `npm start`, `npm run cli` and `node scripts/…` behave as in `root`, while files
 * the commands write into the working directory land in `into`.
 *
 * @returns the entries linked, sorted.
 * @throws Error when `root` is not a git checkout (the tracked entries are git's list).
 */
export function makeScratchCheckout(root: string, into: string): string[] {
  let tracked: string;
  try {
    tracked = execFileSync('git', ['ls-files', '-z'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    throw new Error(
      `the README test runs in a scratch copy of the checkout, made from git's list of tracked files: ${(error as Error).message}`,
    );
  }
  const entries = new Set(
    tracked
      .split('\0')
      .filter(Boolean)
      .map((path) => path.split('/')[0])
      .filter((entry) => existsSync(join(root, entry))),
  );
  for (const output of BUILD_OUTPUTS) if (existsSync(join(root, output))) entries.add(output);
  const linked = [...entries].sort();
  for (const entry of linked) symlinkSync(join(root, entry), join(into, entry));
  return linked;
}
