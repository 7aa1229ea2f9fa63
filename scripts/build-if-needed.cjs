#!/usr/bin/env node
// Builds what is missing or older than its sources, so `npm start` and `npm run cli` work on a
// fresh clone and stay fast afterwards:
// - the service: `nest build` into dist/ when a file under src/ (or package.json) is newer;
// - the dashboard's browser app (web/, when present): `vite build` into dist/dashboard/ when a
//   file under web/src or web/public, or web/'s index.html, configs or package.json, or the
//   lockfile is newer.
// - the API client and CSV importer (packages/client): `tsc` into packages/client/dist/ when a
//   file under its src/, its package.json or its tsconfigs is newer. `--client-only` (what
//   `npm run import:csv` uses) builds just that one.
// Each build is stamped with a marker; the check only compares modification times (a few
// hundred stat calls), so a CLI run that needs no build pays a few milliseconds.
// `--force` (what `npm run build` uses) always builds both, and stamps them all the same.
// Only `--force` prints Vite's table of asset sizes: a build on the way to `npm start` or a CLI
// command prints one line per build, and Vite's warnings and errors (`--logLevel warn`).
const { execSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const web = join(root, 'web');
const client = join(root, 'packages', 'client');
const force = process.argv.includes('--force');
const clientOnly = process.argv.includes('--client-only');
// Written after every build: tsc's incremental mode leaves unchanged outputs (main.js) with
// their old times, so their mtime cannot tell whether the build is current.
const serviceMarker = join(root, 'dist', '.built-at');
const webMarker = join(root, 'dist', '.dashboard-built-at');

/** Newest mtime (ms) of the files and folders given, folders walked; 0 for missing paths. */
function newestMtime(...paths) {
  let newest = 0;
  for (const path of paths) {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      continue;
    }
    let mtime = stats.mtimeMs;
    if (stats.isDirectory()) {
      for (const entry of readdirSync(path))
        mtime = Math.max(mtime, newestMtime(join(path, entry)));
    }
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

/** Whether `marker` is missing, `output` is missing, or a source is newer than the marker. */
function stale(marker, output, sources) {
  if (force || !existsSync(marker) || !existsSync(output)) return true;
  return statSync(marker).mtimeMs < newestMtime(...sources);
}

function stamp(marker) {
  writeFileSync(marker, `${new Date().toISOString()}\n`);
}

const clientMarker = join(client, 'dist', '.built-at');
if (
  existsSync(client) &&
  stale(clientMarker, join(client, 'dist', 'import', 'cli.js'), [
    join(client, 'src'),
    join(client, 'package.json'),
    join(client, 'tsconfig.json'),
    join(client, 'tsconfig.build.json'),
  ])
) {
  process.stderr.write('Building packages/client/dist/ (tsc)…\n');
  execSync('npm run --silent --workspace @campaign-api/client build', {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  stamp(clientMarker);
}
if (clientOnly) process.exit(0);

if (
  stale(serviceMarker, join(root, 'dist', 'main.js'), [
    join(root, 'src'),
    join(root, 'package.json'),
  ])
) {
  process.stderr.write('Building dist/ (nest build)…\n');
  execSync('npx --no-install nest build', { cwd: root, stdio: ['ignore', 2, 2] });
  stamp(serviceMarker);
}

const webSources = [
  join(web, 'src'),
  join(web, 'public'),
  join(web, 'index.html'),
  join(web, 'vite.config.ts'),
  join(web, 'tsconfig.json'),
  join(web, 'package.json'),
  join(root, 'package-lock.json'),
];
if (
  existsSync(web) &&
  stale(webMarker, join(root, 'dist', 'dashboard', 'index.html'), webSources)
) {
  process.stderr.write('Building dist/dashboard/ (vite build of web/)…\n');
  const quiet = force ? '' : ' -- --logLevel warn';
  execSync(`npm run --silent --workspace web build${quiet}`, {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  stamp(webMarker);
}
