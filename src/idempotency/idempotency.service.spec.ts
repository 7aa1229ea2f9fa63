import { ConflictError, DomainError } from '../common/domain-error';
import { toErrorResponse } from '../common/error-envelope.filter';
import { IdempotencyConflictError } from './idempotency-errors';
import type { IdempotencyRepository, StoredIdempotencyKey } from './idempotency.repository';
import { IdempotencyService, replayOf } from './idempotency.service';

const HASH = 'a'.repeat(64);
const OTHER_HASH = 'b'.repeat(64);

function stored(overrides: Partial<StoredIdempotencyKey> = {}): StoredIdempotencyKey {
  return {
    requestHash: HASH,
    status: 'completed',
    responseStatus: 202,
    responseBody: '{"status":"accepted"}',
    ...overrides,
  };
}

/** A repository double: `tryClaim` answers from `claims` in turn, `find` from `rows`. */
function fakeRepository(claims: boolean[], rows: Array<StoredIdempotencyKey | null>) {
  const repository = {
    tryClaim: jest.fn(async () => claims.shift() ?? false),
    find: jest.fn(async () => rows.shift() ?? null),
    complete: jest.fn(async () => undefined),
    release: jest.fn(async () => undefined),
  };
  return {
    repository,
    service: new IdempotencyService(repository as unknown as IdempotencyRepository),
  };
}

describe('IdempotencyConflictError', () => {
  it('is a conflict domain error with the documented messages', () => {
    const differentBody = IdempotencyConflictError.differentBody();
    expect(differentBody).toBeInstanceOf(ConflictError);
    expect(differentBody).toBeInstanceOf(DomainError);
    expect(differentBody.code).toBe('idempotency_conflict');
    expect(toErrorResponse(differentBody)).toMatchObject({
      status: 409,
      body: { error: 'idempotency_conflict' },
    });
    expect(differentBody.name).toBe('IdempotencyConflictError');
    expect(differentBody.message).toBe(
      'This Idempotency-Key was already used with a different request body',
    );
    expect(IdempotencyConflictError.stillRunning().message).toBe(
      'A request with this Idempotency-Key is still being processed; retry shortly',
    );
  });
});

describe('replayOf (docs/api.md#idempotent-retries)', () => {
  it('replays a completed key of the same body, text as stored', () => {
    expect(replayOf(stored({ responseStatus: 202, responseBody: '{"b":1,"a":2}' }), HASH)).toEqual({
      kind: 'replay',
      status: 202,
      body: '{"b":1,"a":2}',
    });
  });

  it('replays 202 when no status was stored', () => {
    expect(replayOf(stored({ responseStatus: null }), HASH)).toMatchObject({ status: 202 });
  });

  it('rejects another body, even of a completed key', () => {
    expect(() => replayOf(stored(), OTHER_HASH)).toThrow(IdempotencyConflictError.differentBody());
  });

  it('rejects a key whose first request is still running', () => {
    const running = stored({ status: 'in_progress', responseStatus: null, responseBody: null });
    expect(() => replayOf(running, HASH)).toThrow(IdempotencyConflictError.stillRunning());
  });

  it('checks the body before the status', () => {
    const running = stored({ status: 'in_progress', responseBody: null });
    expect(() => replayOf(running, OTHER_HASH)).toThrow(IdempotencyConflictError.differentBody());
  });

  it('rejects a completed key without a body as still running', () => {
    expect(() => replayOf(stored({ responseBody: null }), HASH)).toThrow(
      IdempotencyConflictError.stillRunning(),
    );
  });
});

describe('IdempotencyService', () => {
  it('hashes a body as hex SHA-256 of its JSON text, undefined as null', () => {
    expect(IdempotencyService.hashBody({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
    expect(IdempotencyService.hashBody({ a: 1 })).toBe(IdempotencyService.hashBody({ a: 1 }));
    expect(IdempotencyService.hashBody({ a: 1, b: 2 })).not.toBe(
      IdempotencyService.hashBody({ b: 2, a: 1 }),
    );
    expect(IdempotencyService.hashBody(undefined)).toBe(IdempotencyService.hashBody(null));
  });

  it('claims a free key without reading it', async () => {
    const { repository, service } = fakeRepository([true], []);
    await expect(service.claim(7, 'k', HASH)).resolves.toEqual({ kind: 'claimed' });
    expect(repository.tryClaim).toHaveBeenCalledWith(7, 'k', HASH);
    expect(repository.find).not.toHaveBeenCalled();
  });

  it('replays the stored response of a taken key', async () => {
    const { service } = fakeRepository([false], [stored()]);
    await expect(service.claim(7, 'k', HASH)).resolves.toEqual({
      kind: 'replay',
      status: 202,
      body: '{"status":"accepted"}',
    });
  });

  it('tries again when the key was released between claim and read', async () => {
    const { repository, service } = fakeRepository([false, true], [null]);
    await expect(service.claim(7, 'k', HASH)).resolves.toEqual({ kind: 'claimed' });
    expect(repository.tryClaim).toHaveBeenCalledTimes(2);
  });

  it('throws the conflict of a taken key', async () => {
    const { service } = fakeRepository([false], [stored({ requestHash: OTHER_HASH })]);
    await expect(service.claim(7, 'k', HASH)).rejects.toBeInstanceOf(IdempotencyConflictError);
  });

  it('stores the response as its JSON text', async () => {
    const { repository, service } = fakeRepository([], []);
    const manager = {} as never;
    await service.complete(manager, 7, 'k', 202, { status: 'accepted', errors: [] });
    expect(repository.complete).toHaveBeenCalledWith(
      manager,
      7,
      'k',
      202,
      '{"status":"accepted","errors":[]}',
    );
  });

  it('releases through the repository', async () => {
    const { repository, service } = fakeRepository([], []);
    await service.release(7, 'k');
    expect(repository.release).toHaveBeenCalledWith(7, 'k');
  });
});
