import { Box, Text } from '@mantine/core';
import { diffCounts, lineDiff, type DiffLine } from '../lib/line-diff';
import classes from './version-diff.module.css';

const SIGN: Record<DiffLine['kind'], string> = { same: ' ', added: '+', removed: '−' };
const SAID: Record<DiffLine['kind'], string> = {
  same: 'unchanged',
  added: 'added',
  removed: 'removed',
};

const lines = (n: number) => `${n} ${n === 1 ? 'line' : 'lines'}`;

/**
 * A unified line diff of two versions' code: each line with its line numbers in the older and
 * the newer version, its sign (+ added, − removed, a space unchanged) and colour, and for screen
 * readers the word. Long lines wrap.
 */
export function VersionDiff({
  older,
  newer,
  olderLabel,
  newerLabel,
}: {
  older: string;
  newer: string;
  olderLabel: string;
  newerLabel: string;
}) {
  const rows = lineDiff(older, newer);
  const { added, removed } = diffCounts(rows);
  return (
    <Box data-testid="version-diff">
      <Text size="sm" mb="xs" role="status">
        {olderLabel} → {newerLabel}: {lines(added)} added, {lines(removed)} removed
        {added + removed === 0 ? ' (the same code)' : ''}.
      </Text>
      <ol className={classes.diff} aria-label={`Changes from ${olderLabel} to ${newerLabel}`}>
        {rows.map((row, i) => (
          <li key={i} className={classes[row.kind]} data-kind={row.kind}>
            <span className={classes.number} aria-hidden>
              {row.oldLine ?? ''}
            </span>
            <span className={classes.number} aria-hidden>
              {row.newLine ?? ''}
            </span>
            <span className={classes.sign} aria-hidden>
              {SIGN[row.kind]}
            </span>
            <span className={classes.hidden}>{SAID[row.kind]}: </span>
            <span className={classes.text}>{row.text || ' '}</span>
          </li>
        ))}
      </ol>
    </Box>
  );
}
