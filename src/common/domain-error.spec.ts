import {
  AlreadyExistsError,
  ConflictError,
  DomainError,
  InvalidInputError,
  NotFoundError,
  StateConflictError,
} from './domain-error';
import { toErrorResponse } from './error-envelope.filter';

describe('domain errors', () => {
  it('carry a code, a message for any client and, for input errors, the field', () => {
    const error = InvalidInputError.field('url', 'must use http or https');
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      code: 'invalid_input',
      field: 'url',
      message: 'url must use http or https',
      name: 'InvalidInputError',
    });
    expect(new NotFoundError('webhook endpoint 7 does not exist').code).toBe('not_found');
  });

  it('give each kind of conflict its own code', () => {
    const conflicts = [
      new StateConflictError('the import is cancelled: upload the file again'),
      new AlreadyExistsError('a dashboard user with email a@example.com exists already'),
    ];
    expect(conflicts.every((error) => error instanceof ConflictError)).toBe(true);
    expect(conflicts.map((error) => error.code)).toEqual(['state_conflict', 'already_exists']);
  });

  it.each([
    [new InvalidInputError('name must be 1 to 200 characters', 'name'), 422, 'validation_failed'],
    [new NotFoundError('Campaign 1 has no webhook endpoint 2'), 404, 'not_found'],
    [new StateConflictError('webhook endpoint 3 is disabled'), 409, 'conflict'],
    [new AlreadyExistsError('a dashboard user with email a@example.com exists'), 409, 'conflict'],
  ])('map to the HTTP envelope: %s → %i %s', (error, status, code) => {
    expect(toErrorResponse(error)).toEqual({
      status,
      headers: {},
      body: { error: code, message: error.message },
    });
  });

  it('never put an unknown error on the wire', () => {
    expect(toErrorResponse(new Error('SELECT secret FROM x'))).toEqual({
      status: 500,
      headers: {},
      body: {
        error: 'internal_error',
        message: 'An unexpected error occurred; it has been logged',
      },
    });
  });
});
