import { diffLines } from 'diff';

/** One line of a comparison: in both versions, only in the newer one, or only in the older. */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** Its line number in the older version (null when added). */
  oldLine: number | null;
  /** Its line number in the newer version (null when removed). */
  newLine: number | null;
}

/** Splits a chunk of jsdiff's into its lines (the chunk ends with a newline, but for the last). */
function linesOf(value: string): string[] {
  const lines = value.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * The line diff of `older` → `newer` (jsdiff's `diffLines`), one entry a line, in order: what
 * a unified diff shows, with both line numbers. A trailing newline's presence is not a change.
 */
export function lineDiff(older: string, newer: string): DiffLine[] {
  const rows: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  const end = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  for (const change of diffLines(end(older), end(newer))) {
    for (const text of linesOf(change.value)) {
      if (change.added) rows.push({ kind: 'added', text, oldLine: null, newLine: newLine++ });
      else if (change.removed)
        rows.push({ kind: 'removed', text, oldLine: oldLine++, newLine: null });
      else rows.push({ kind: 'same', text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return rows;
}

/** How many lines were added and removed. */
export function diffCounts(rows: DiffLine[]): { added: number; removed: number } {
  return {
    added: rows.filter((r) => r.kind === 'added').length,
    removed: rows.filter((r) => r.kind === 'removed').length,
  };
}
