import { InvalidInputError } from '../../common/domain-error';
import {
  decodeSearchCursor,
  encodeSearchCursor,
  guessField,
  parseLeadSearch,
  type SearchPosition,
} from './lead-search';
import { leadSearchSql } from './lead-directory.repository';

describe('lead search (docs/dashboard.md#leads)', () => {
  it('guesses the field from the text: @ an email, digits and phone punctuation a phone, else a name', () => {
    expect(guessField('ada@ex')).toBe('email');
    expect(guessField('@')).toBe('email');
    expect(guessField('(415) 555-0100')).toBe('phone');
    expect(guessField('+44 20 7946 0018')).toBe('phone');
    expect(guessField('415.555.0100')).toBe('phone');
    expect(guessField('()-')).toBe('name');
    expect(guessField('Ada 2')).toBe('name');
    expect(guessField('Ada')).toBe('name');
  });

  it('guesses the start of an email from one word a name would not hold: _ % + . or a digit', () => {
    expect(guessField('kaleigh_')).toBe('email');
    expect(guessField('ada.lovelace')).toBe('email');
    expect(guessField('bob+crm')).toBe('email');
    expect(guessField('ada2')).toBe('email');
    // Names keep hyphens, apostrophes and spaces.
    expect(guessField('Jean-Luc')).toBe('name');
    expect(guessField("O'Brien")).toBe('name');
    expect(guessField('Zoë')).toBe('name');
    expect(guessField('J. R. R.')).toBe('name');
  });

  it('normalises a phone in the campaign’s region; keeps a prefix as typed, white space collapsed', () => {
    expect(parseLeadSearch({ q: ' (415) 555-0100 ' }, 'US')).toEqual({
      field: 'phone',
      value: '+14155550100',
      limit: 25,
      after: null,
    });
    expect(parseLeadSearch({ q: '020 7946 0018' }, 'GB').value).toBe('+442079460018');
    expect(parseLeadSearch({ q: '  Ada \t Love ', limit: '7' }, 'US')).toEqual({
      field: 'name',
      value: 'Ada Love',
      limit: 7,
      after: null,
    });
    expect(parseLeadSearch({ q: '415', field: 'name' }, 'US').field).toBe('name');
  });

  it.each([
    [{}, 'q'],
    [{ q: ' ' }, 'q'],
    [{ q: 'x'.repeat(321) }, 'q'],
    [{ q: '12' }, 'q'],
    [{ q: 'ada', field: 'title' }, 'field'],
    [{ q: 'ada', limit: '0' }, 'limit'],
    [{ q: 'ada', limit: '1.5' }, 'limit'],
    [{ q: 'ada', cursor: 'nope!' }, 'cursor'],
  ])('refuses %j naming %s', (query, field) => {
    expect(() => parseLeadSearch(query, 'US')).toThrow(InvalidInputError);
    try {
      parseLeadSearch(query, 'US');
    } catch (error) {
      expect((error as InvalidInputError).field).toBe(field);
    }
  });

  it('round-trips a cursor, any key included, and refuses one of another field or altered', () => {
    const position = { key: 'ada lovelace:é%', id: 19801 };
    const cursor = encodeSearchCursor('name', position);
    expect(decodeSearchCursor('name', cursor)).toEqual(position);
    expect(() => decodeSearchCursor('email', cursor)).toThrow(InvalidInputError);
    expect(() => decodeSearchCursor('name', `${cursor}=`)).toThrow(InvalidInputError);
    const zero = Buffer.from('v1:name:01:x').toString('base64url');
    expect(() => decodeSearchCursor('name', zero)).toThrow(InvalidInputError);
  });

  it('refuses a cursor that would carry a NUL to PostgreSQL: forged, or a real one with a character appended', () => {
    const nul = Buffer.from('v1:name:1:\0', 'utf8').toString('base64url');
    expect(() => decodeSearchCursor('name', nul)).toThrow(
      'cursor is not a cursor of this search: pass next_cursor unchanged',
    );
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const key of ['ada', 'ada ', 'ada l']) {
      const cursor = encodeSearchCursor('name', { key, id: 1 });
      expect(() => decodeSearchCursor('name', `${cursor}A`)).toThrow(InvalidInputError);
      for (const extra of alphabet) {
        let position: SearchPosition | null = null;
        try {
          position = decodeSearchCursor('name', `${cursor}${extra}`);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInputError);
        }
        if (position) expect(position.key).not.toContain('\0');
      }
    }
  });

  it('keeps control characters other than NUL in a key, as a lead’s name may hold them', () => {
    const position = { key: 'ada\u0001 \tlovelace\u007f', id: 7 };
    expect(decodeSearchCursor('name', encodeSearchCursor('name', position))).toEqual(position);
  });

  it('reads back the cursor of the longest name key: 511 code points of 4 bytes each', () => {
    const half = '\u{1D49C}'.repeat(255);
    const position = { key: `${half} ${half}`, id: Number.MAX_SAFE_INTEGER };
    expect(decodeSearchCursor('name', encodeSearchCursor('name', position))).toEqual(position);
  });

  it('escapes LIKE’s wildcards and asks one row more than the page', () => {
    const sql = leadSearchSql(3, { field: 'email', value: 'a_b%c\\', limit: 10, after: null });
    expect(sql.values).toEqual([3, 11, 'a\\_b\\%c\\\\%']);
    expect(sql.text).toContain('lower(l.email) COLLATE "C" LIKE lower($3)');
    const phone = leadSearchSql(3, { field: 'phone', value: '+1415', limit: 1, after: null });
    expect(phone.values).toEqual([3, 2, '+1415']);
  });
});
