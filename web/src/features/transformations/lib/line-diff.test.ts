import { describe, expect, it } from 'vitest';
import { diffCounts, lineDiff } from './line-diff';

describe('lineDiff', () => {
  it('lists unchanged, removed and added lines in order with both line numbers', () => {
    const rows = lineDiff('a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(rows).toEqual([
      { kind: 'same', text: 'a', oldLine: 1, newLine: 1 },
      { kind: 'removed', text: 'b', oldLine: 2, newLine: null },
      { kind: 'added', text: 'B', oldLine: null, newLine: 2 },
      { kind: 'same', text: 'c', oldLine: 3, newLine: 3 },
      { kind: 'added', text: 'd', oldLine: null, newLine: 4 },
    ]);
    expect(diffCounts(rows)).toEqual({ added: 2, removed: 1 });
  });

  it('does not count a missing trailing newline as a change', () => {
    expect(diffCounts(lineDiff('a\nb', 'a\nb\n'))).toEqual({ added: 0, removed: 0 });
  });

  it('keeps empty lines', () => {
    expect(lineDiff('a\n\nb', 'a\n\nb').map((r) => r.text)).toEqual(['a', '', 'b']);
  });
});
