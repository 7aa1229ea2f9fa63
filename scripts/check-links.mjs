#!/usr/bin/env node
// Fails (exit 1) when the repository points outside itself or at something that is not in it:
// any path into the workspace's shared folder beside the checkout, a Markdown link to a missing file or heading, a link that leaves the
// repository, or a `docs/<file>.md#<anchor>` reference in code whose file or heading is
// missing. Run by CI (`npm run check:links`); prints one line per problem.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
})
  .toString()
  .split('\n')
  .filter((f) => f && /\.(md|ts|mjs|cjs|js|json|ya?ml|example)$|(^|\/)Dockerfile$/.test(f))
  .filter((f) => !f.startsWith('node_modules/') && f !== 'package-lock.json')
  .filter((f) => existsSync(join(root, f)));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorCache = new Map();
function anchorsOf(file) {
  if (!anchorCache.has(file)) {
    const seen = new Map();
    const anchors = new Set();
    let fenced = false;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (/^\s*```/.test(line)) fenced = !fenced;
      const match = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
      if (!match) continue;
      const base = slug(match[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    anchorCache.set(file, anchors);
  }
  return anchorCache.get(file);
}

/** The workspace folder beside the checkout that a clone does not have. */
const SHARED = ['..', 'shared'].join('/');

const problems = [];
/** Checks `target` (a path relative to `base`, with an optional #anchor) cited at `where`. */
function checkTarget(where, base, target) {
  const [path, anchor] = target.split('#');
  const absolute = path ? resolve(base, path) : join(root, where.split(':')[0]);
  if (relative(root, absolute).startsWith('..')) {
    problems.push(`${where}: ${target} leaves the repository`);
  } else if (!existsSync(absolute)) {
    problems.push(`${where}: ${target} does not exist`);
  } else if (anchor && absolute.endsWith('.md') && !anchorsOf(absolute).has(anchor)) {
    problems.push(`${where}: ${target} names no heading of ${relative(root, absolute)}`);
  }
}

for (const file of files) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  lines.forEach((text, i) => {
    const line = i + 1;
    if (text.includes(SHARED)) problems.push(`${file}:${line}: points to ${SHARED}`);
    if (file.endsWith('.md')) {
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!/^[a-z]+:/i.test(target)) {
          checkTarget(`${file}:${line}`, dirname(join(root, file)), target);
        }
      }
    } else {
      for (const [reference] of text.matchAll(/\bdocs\/[\w-]+\.md(#[\w-]+)?/g)) {
        checkTarget(`${file}:${line}`, root, reference);
      }
    }
  });
}

if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n${problems.length} broken reference(s)\n`);
  process.exit(1);
}
process.stdout.write(`links: ${files.length} files checked, every reference resolves\n`);
