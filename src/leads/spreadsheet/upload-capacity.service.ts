import { Injectable } from '@nestjs/common';
import {
  SPREADSHEET_MAX_BYTES,
  UPLOAD_CONCURRENCY,
  UPLOAD_PROCESS_BYTES,
  UPLOAD_RETRY_AFTER_SECONDS,
} from './spreadsheet-limits';

/** An upload refused for want of capacity: the HTTP edge answers it with 429 and `Retry-After`. */
export class UploadCapacityError extends Error {
  constructor(
    message: string,
    /** When to try again, in seconds. */
    readonly retryAfterSeconds: number = UPLOAD_RETRY_AFTER_SECONDS,
  ) {
    super(message);
    this.name = 'UploadCapacityError';
  }
}

/** Frees what {@link UploadCapacity.reserve} took; calling it twice frees once. */
export type UploadReservation = () => void;

/**
 * How many spreadsheet uploads this process receives at once, and for whom
 * (docs/security.md#spreadsheet-uploads): at most {@link UPLOAD_CONCURRENCY}.perProcess at
 * once, of which {@link UPLOAD_CONCURRENCY}.perAccount of one account, holding at most
 * {@link UPLOAD_PROCESS_BYTES} together. One account's uploads can therefore never take all of
 * a process's upload capacity, nor its disk. Counted per process: each API process has its
 * own capacity, so the service's grows with its processes.
 */
@Injectable()
export class UploadCapacity {
  private total = 0;
  private bytes = 0;
  private readonly perAccount = new Map<number, number>();

  /**
   * Reserves room for one upload of an account.
   * @param declaredBytes the request's `Content-Length`, or null when it declares none (then
   *   the largest file is reserved).
   * @returns the function that frees the reservation (call it when the upload is done).
   * @throws UploadCapacityError when the account has its most uploads running, or the process
   *   its most uploads or bytes.
   */
  reserve(accountId: number, declaredBytes: number | null): UploadReservation {
    const bytes = Math.min(declaredBytes ?? SPREADSHEET_MAX_BYTES, SPREADSHEET_MAX_BYTES);
    const ofAccount = this.perAccount.get(accountId) ?? 0;
    if (ofAccount >= UPLOAD_CONCURRENCY.perAccount) {
      throw new UploadCapacityError(
        `This account already has ${ofAccount} spreadsheet uploads in progress: wait for one to finish`,
      );
    }
    if (this.total >= UPLOAD_CONCURRENCY.perProcess || this.bytes + bytes > UPLOAD_PROCESS_BYTES) {
      throw new UploadCapacityError(
        'The service is receiving as many spreadsheet uploads as it can: retry shortly',
      );
    }
    this.total += 1;
    this.bytes += bytes;
    this.perAccount.set(accountId, ofAccount + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.total -= 1;
      this.bytes -= bytes;
      const left = (this.perAccount.get(accountId) ?? 1) - 1;
      if (left === 0) this.perAccount.delete(accountId);
      else this.perAccount.set(accountId, left);
    };
  }
}
