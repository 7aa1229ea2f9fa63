#!/usr/bin/env node
// Builds dist/ with `nest build` when it is missing or older than any file under src/,
// so `npm start` and `npm run cli` work on a fresh clone and stay fast afterwards.
// `--force` (what `npm run build` uses) always builds, and stamps the build all the same.
const { execSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
// Written after every build: tsc's incremental mode leaves unchanged outputs (main.js) with
// their old times, so their mtime cannot tell whether the build is current.
const marker = join(root, 'dist', '.built-at');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

const sources = Math.max(
  newestMtime(join(root, 'src')),
  statSync(join(root, 'package.json')).mtimeMs,
);
if (
  process.argv.includes('--force') ||
  !existsSync(marker) ||
  !existsSync(join(root, 'dist', 'main.js')) ||
  statSync(marker).mtimeMs < sources
) {
  process.stderr.write('Building dist/ (nest build)…\n');
  execSync('npx --no-install nest build', { cwd: root, stdio: ['ignore', 2, 2] });
  writeFileSync(marker, `${new Date().toISOString()}\n`);
}
