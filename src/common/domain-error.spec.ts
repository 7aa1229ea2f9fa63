import { ConflictError, DomainError, InvalidInputError, NotFoundError } from './domain-error';
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
    expect(new ConflictError('busy').code).toBe('conflict');
  });

  it.each([
    [new InvalidInputError('name must be 1 to 200 characters', 'name'), 422, 'validation_failed'],
    [new NotFoundError('Campaign 1 has no webhook endpoint 2'), 404, 'not_found'],
    [new ConflictError('This Idempotency-Key was already used'), 409, 'idempotency_conflict'],
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
