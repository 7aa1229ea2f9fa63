#!/usr/bin/env node
// No cycle between features (docs/architecture.md#layering-rules): the import graph of
// `src/` (as dependency-cruiser resolves it, type-only imports included), folded so that each
// feature of scripts/architecture-features.cjs is one node, must have no cycle. Run by
// `npm run lint:architecture`; exits 1 and prints each cycle with an import that makes each
// of its edges.
//
// Usage: node scripts/check-feature-cycles.mjs [dir, default src] [--cwd <dir>]
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { FEATURE, SHARED } = require('./architecture-features.cjs');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const args = process.argv.slice(2);
const cwdAt = args.indexOf('--cwd');
const cwd = cwdAt >= 0 ? resolve(args[cwdAt + 1]) : root;
const target =
  args.find((arg, index) => !arg.startsWith('--') && args[index - 1] !== '--cwd') ?? 'src';

const output = execFileSync(
  join(root, 'node_modules/.bin/depcruise'),
  [target, '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'],
  { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] },
).toString();
const { modules } = JSON.parse(output);

const featurePattern = new RegExp(FEATURE);
const sharedPattern = new RegExp(`^src/${SHARED}/`);
/** The feature a file belongs to, or null (shared folders, files directly in src/, packages). */
function featureOf(path) {
  if (sharedPattern.test(path)) return null;
  return featurePattern.exec(path)?.[1] ?? null;
}

/** feature → feature → one import that makes the edge. */
const edges = new Map();
for (const module of modules) {
  const from = featureOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = featureOf(dependency.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to))
      edges.get(from).set(to, `${module.source} → ${dependency.resolved}`);
  }
}

// Tarjan's strongly connected components: each with more than one feature is a cycle.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function connect(node) {
  index.set(node, counter);
  low.set(node, counter);
  counter += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of edges.get(node)?.keys() ?? []) {
    if (!index.has(next)) {
      connect(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) {
      low.set(node, Math.min(low.get(node), index.get(next)));
    }
  }
  if (low.get(node) === index.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  }
}
for (const node of edges.keys()) if (!index.has(node)) connect(node);

if (cycles.length === 0) {
  console.log(`no cycle between features (${edges.size} features with imports)`);
  process.exit(0);
}
for (const component of cycles) {
  console.error(`feature cycle: ${component.join(', ')}`);
  for (const from of component) {
    for (const [to, example] of edges.get(from) ?? []) {
      if (component.includes(to)) console.error(`  ${from} → ${to}: ${example}`);
    }
  }
}
process.exit(1);
