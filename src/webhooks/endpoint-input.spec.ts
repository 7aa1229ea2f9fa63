import { InvalidInputError } from '../common/domain-error';
import {
  validateDescription,
  validateEvents,
  validateThrottleLimit,
  validateUrl,
} from './endpoint-input';

function errorOf(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('expected an InvalidInputError');
}

describe('endpoint input', () => {
  describe('validateUrl', () => {
    it('normalises scheme, host, default port and IDN, keeping path and query', () => {
      expect(validateUrl(' HTTPS://Bücher.Example:443/A/B?x=1 ')).toBe(
        'https://xn--bcher-kva.example/A/B?x=1',
      );
      expect(validateUrl('http://127.0.0.1:8080/hook')).toBe('http://127.0.0.1:8080/hook');
    });

    it.each([
      ['not a url', 'url must be an absolute http or https URL, got "not a url"'],
      ['ftp://example.com/x', 'url must use http or https, got "ftp"'],
      ['https://user:pw@example.com/', 'url must not contain credentials'],
      [`https://example.com/${'a'.repeat(2048)}`, 'url must be at most 2048 characters'],
    ])('refuses %s, naming the field', (url, message) => {
      expect(errorOf(() => validateUrl(url))).toMatchObject({ field: 'url', message });
    });
  });

  describe('validateEvents', () => {
    it('trims, drops blanks and repeats, keeping the first order', () => {
      expect(validateEvents([' lead.created', 'leads.bulk_created', 'lead.created', ''])).toEqual([
        'lead.created',
        'leads.bulk_created',
      ]);
    });

    it('refuses an empty list and unknown types', () => {
      expect(errorOf(() => validateEvents([' ']))).toMatchObject({
        field: 'events',
        message: 'events must name at least one event type',
      });
      expect(errorOf(() => validateEvents(['lead.created', 'lead.nope', 'x']))).toMatchObject({
        field: 'events',
        message: 'events has unknown event types: lead.nope, x',
      });
    });
  });

  describe('validateDescription', () => {
    it('trims, treats blank as none, and caps the length at 500', () => {
      expect(validateDescription('  CRM sync ')).toBe('CRM sync');
      expect(validateDescription('   ')).toBeNull();
      expect(validateDescription(null)).toBeNull();
      expect(validateDescription('a'.repeat(500))).toHaveLength(500);
      expect(errorOf(() => validateDescription('a'.repeat(501)))).toMatchObject({
        field: 'description',
      });
    });
  });

  describe('validateThrottleLimit', () => {
    it('takes whole numbers within the bounds, and null for no limit', () => {
      expect(validateThrottleLimit('max_deliveries_per_second', 1)).toBe(1);
      expect(validateThrottleLimit('max_deliveries_per_second', 1000)).toBe(1000);
      expect(validateThrottleLimit('max_in_flight', 100)).toBe(100);
      expect(validateThrottleLimit('max_in_flight', null)).toBeNull();
    });

    it('refuses anything else, naming the field and the bounds', () => {
      for (const value of [0, 1001, 2.5, -1, Number.NaN, '5', true]) {
        const error = errorOf(() => validateThrottleLimit('max_deliveries_per_second', value));
        expect(error.field).toBe('max_deliveries_per_second');
        expect(error.message).toBe(
          'max_deliveries_per_second must be a whole number from 1 to 1,000, or null for no limit',
        );
      }
      expect(errorOf(() => validateThrottleLimit('max_in_flight', 101)).message).toBe(
        'max_in_flight must be a whole number from 1 to 100, or null for no limit',
      );
    });
  });
});
