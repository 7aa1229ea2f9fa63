import { describe, expect, it } from 'vitest';
import { countOf, formatBytes, formatCount } from './format';

describe('formatCount, countOf', () => {
  it('groups thousands with commas whatever the viewer’s locale', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(10_000)).toBe('10,000');
    expect(formatCount(1_048_576)).toBe('1,048,576');
  });

  it('says one row, never "1 rows", and groups the plural’s figure', () => {
    expect(countOf(1, 'row')).toBe('1 row');
    expect(countOf(0, 'row')).toBe('0 rows');
    expect(countOf(10_000, 'row')).toBe('10,000 rows');
    expect(countOf(2, 'entry', 'entries')).toBe('2 entries');
  });
});

describe('formatBytes', () => {
  it('shows a small file in bytes or KiB, never as 0.0 MiB', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(27)).toBe('27 bytes');
    expect(formatBytes(1023)).toBe('1,023 bytes');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(7 * 1024 + 300)).toBe('7.3 KiB');
  });

  it('moves to the next unit rather than showing 1024.0', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MiB');
    expect(formatBytes(3.4 * 1024 * 1024)).toBe('3.4 MiB');
    expect(formatBytes(100 * 1024 * 1024)).toBe('100.0 MiB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2.0 GiB');
  });
});
