import {
  isRetryableTransactionError,
  MAX_TRANSACTION_ATTEMPTS,
  retryOnTransactionConflict,
} from './transaction-retry';

const sqlError = (code: string) =>
  Object.assign(new Error(`sqlstate ${code}`), { driverError: { code } });

describe('isRetryableTransactionError', () => {
  it('retries deadlocks and serialization failures only', () => {
    expect(isRetryableTransactionError(sqlError('40P01'))).toBe(true);
    expect(isRetryableTransactionError(sqlError('40001'))).toBe(true);
    expect(isRetryableTransactionError(sqlError('23503'))).toBe(false);
    expect(isRetryableTransactionError(sqlError('23505'))).toBe(false);
    expect(isRetryableTransactionError(new Error('40P01'))).toBe(false);
    expect(isRetryableTransactionError(undefined)).toBe(false);
    expect(isRetryableTransactionError(null)).toBe(false);
  });
});

describe('retryOnTransactionConflict (docs/decisions.md#uploads)', () => {
  it('returns the first successful run', async () => {
    const run = jest.fn().mockResolvedValue('done');
    await expect(retryOnTransactionConflict(run)).resolves.toBe('done');
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('runs again after a deadlock or serialization failure', async () => {
    const run = jest
      .fn()
      .mockRejectedValueOnce(sqlError('40P01'))
      .mockRejectedValueOnce(sqlError('40001'))
      .mockResolvedValue('done');
    await expect(retryOnTransactionConflict(run)).resolves.toBe('done');
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('gives up after three runs with the last error', async () => {
    const last = sqlError('40001');
    const run = jest
      .fn()
      .mockRejectedValueOnce(sqlError('40P01'))
      .mockRejectedValueOnce(sqlError('40P01'))
      .mockRejectedValueOnce(last)
      .mockResolvedValue('too late');
    expect(MAX_TRANSACTION_ATTEMPTS).toBe(3);
    await expect(retryOnTransactionConflict(run)).rejects.toBe(last);
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('rethrows any other error at once', async () => {
    const error = sqlError('23505');
    const run = jest.fn().mockRejectedValueOnce(error).mockResolvedValue('never');
    await expect(retryOnTransactionConflict(run)).rejects.toBe(error);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('honours a smaller attempt limit', async () => {
    const run = jest.fn().mockRejectedValue(sqlError('40P01'));
    await expect(retryOnTransactionConflict(run, 1)).rejects.toThrow('sqlstate 40P01');
    expect(run).toHaveBeenCalledTimes(1);
  });
});
