import { describe, expect, it } from 'vitest';
import { positionIn, positionText, prettyBody } from './code-position';

describe('positionIn', () => {
  it('reads the line and column a save refusal names', () => {
    expect(positionIn('transformation line 3, column 5: SyntaxError: unexpected token')).toEqual({
      line: 3,
      column: 5,
    });
  });

  it('answers null for a refusal that names no place', () => {
    expect(positionIn('transformation is 70 KiB; at most 64 KiB')).toBeNull();
  });
});

describe('positionText', () => {
  it('says the line and the column when both are known', () => {
    expect(positionText(2, 9)).toBe('line 2, column 9');
    expect(positionText(2, null)).toBe('line 2');
    expect(positionText(null, null)).toBe('');
  });
});

describe('prettyBody', () => {
  it('pretty-prints a JSON body and leaves any other as it is', () => {
    expect(prettyBody('{"a":1}')).toEqual({ text: '{\n  "a": 1\n}', json: true });
    expect(prettyBody('a=1&b=2')).toEqual({ text: 'a=1&b=2', json: false });
  });
});
