#!/usr/bin/env node
// Prints the size of the built app's JavaScript, gzipped, and fails (exit 1) when the initial
// JavaScript (what the browser loads before the first page shows: the entry script and the
// modules index.html preloads) is over the budget. Lazy route chunks are listed, not counted.
//
//   npm run dashboard:bundle        after `npm run build` (reads dist/dashboard/)
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The budget of the initial JavaScript, gzipped, in kB (1 kB = 1000 bytes, as Vite reports). */
const BUDGET_KB = 250;
const root = fileURLToPath(new URL('../../dist/dashboard/', import.meta.url));

let html;
try {
  html = await readFile(join(root, 'index.html'), 'utf8');
} catch {
  console.error(`No ${join(root, 'index.html')}: run \`npm run build\` first.`);
  process.exit(1);
}

const base = '/dashboard/';
const attribute = (tag, name) => new RegExp(`\\b${name}="([^"]+)"`).exec(tag)?.[1];
const initial = new Set();
for (const [tag] of html.matchAll(/<script\b[^>]*>|<link\b[^>]*>/g)) {
  const isEntry = tag.startsWith('<script') && attribute(tag, 'type') === 'module';
  const isPreload = tag.startsWith('<link') && attribute(tag, 'rel') === 'modulepreload';
  const url = isEntry ? attribute(tag, 'src') : isPreload ? attribute(tag, 'href') : undefined;
  if (url?.startsWith(base)) initial.add(url.slice(base.length));
}
if (initial.size === 0) {
  console.error('index.html loads no module script: is this a Vite build?');
  process.exit(1);
}

const kb = (bytes) => (bytes / 1000).toFixed(1).padStart(7);
const rows = [];
for (const name of (await readdir(join(root, 'assets'))).sort()) {
  if (!/\.(js|css)$/.test(name)) continue;
  const content = await readFile(join(root, 'assets', name));
  const file = `assets/${name}`;
  rows.push({ file, raw: content.length, gzip: gzipSync(content, { level: 9 }).length });
}

const missing = [...initial].filter((file) => !rows.some((row) => row.file === file));
if (missing.length > 0) {
  console.error(`index.html names files the build does not have: ${missing.join(', ')}`);
  process.exit(1);
}

console.log('Dashboard bundle (dist/dashboard/), sizes in kB: raw, gzipped');
for (const row of rows) {
  const kind = initial.has(row.file) ? 'initial' : row.file.endsWith('.css') ? 'css' : 'lazy';
  console.log(`  ${kb(row.raw)} ${kb(row.gzip)}  ${kind.padEnd(7)}  ${row.file}`);
}
const total = rows.filter((row) => initial.has(row.file)).reduce((sum, row) => sum + row.gzip, 0);
const verdict = total <= BUDGET_KB * 1000 ? 'within' : 'OVER';
console.log(
  `Initial JavaScript: ${(total / 1000).toFixed(1)} kB gzipped (${initial.size} files), ${verdict} the ${BUDGET_KB} kB budget`,
);
if (verdict === 'OVER') process.exit(1);
