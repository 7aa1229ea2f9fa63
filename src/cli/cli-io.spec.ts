import { InvalidInputError, NotFoundError } from '../common/domain-error';
import { cliErrorLine, positiveIntListOption, positiveIntOption } from './cli-io';

describe('CLI input and errors', () => {
  it('names a domain error’s field as the option it came from', () => {
    expect(cliErrorLine(InvalidInputError.field('name', 'must be 1 to 200 characters'))).toBe(
      'error: --name must be 1 to 200 characters',
    );
    expect(
      cliErrorLine(
        new InvalidInputError('every campaigns id must be one of account 1', 'campaigns'),
      ),
    ).toBe('error: every --campaigns id must be one of account 1');
  });

  it('names the CLI’s own option for a field whose option is named otherwise', () => {
    expect(
      cliErrorLine(
        InvalidInputError.field(
          'max_deliveries_per_second',
          'must be a whole number from 1 to 1,000',
        ),
      ),
    ).toBe('error: --max-per-second must be a whole number from 1 to 1,000');
    expect(cliErrorLine(InvalidInputError.field('max_in_flight', 'must be …'))).toBe(
      'error: --max-in-flight must be …',
    );
    expect(cliErrorLine(InvalidInputError.field('signature_scheme', 'must be …'))).toBe(
      'error: --signature-scheme must be …',
    );
  });

  it('prints other errors’ first line as they are', () => {
    expect(cliErrorLine(new NotFoundError('webhook endpoint 7 does not exist'))).toBe(
      'error: webhook endpoint 7 does not exist',
    );
    expect(cliErrorLine(new Error('first\nsecond'))).toBe('error: first');
    expect(cliErrorLine('plain')).toBe('error: plain');
  });

  it('reads positive integer options and lists, naming the option when they are wrong', () => {
    expect(positiveIntOption(' 42 ', '--id')).toBe(42);
    expect(() => positiveIntOption('0', '--id')).toThrow(
      '--id must be a positive integer, got "0"',
    );
    expect(() => positiveIntOption(undefined, '--id')).toThrow('--id is required');
    expect(positiveIntListOption('1, 2,3', '--campaigns')).toEqual([1, 2, 3]);
    expect(() => positiveIntListOption('1,a', '--campaigns')).toThrow(
      '--campaigns must be a comma-separated list of positive integers, got "1,a"',
    );
  });
});
