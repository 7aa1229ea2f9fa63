import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  WebhookEndpointsService,
  type AttemptOutcome,
} from '../webhooks/webhook-endpoints.service';
import { DeliveryRepository, type AttemptRecord, type NewAttempt } from './delivery.repository';

/** Most attempts written in one transaction. */
const MAX_BATCH = 500;

interface Pending {
  attempt: NewAttempt;
  resolve: (record: AttemptRecord) => void;
  reject: (error: unknown) => void;
}

/**
 * Records delivery attempts (CONTRACT 5–6). Attempts that finish together are written
 * together: one transaction inserts them, moves their deliveries on and adds them to their
 * endpoints' health counters (one UPDATE per batch, not per attempt), so a busy endpoint's
 * counter row is not a point of contention. Each caller's promise settles only once its
 * attempt is committed, so a job completes only after its attempt is durable.
 */
@Injectable()
export class AttemptLog {
  private queue: Pending[] = [];
  private flushing = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: DeliveryRepository,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  /** Records one attempt; resolves with its row once committed. */
  record(attempt: NewAttempt): Promise<AttemptRecord> {
    return new Promise((resolve, reject) => {
      this.queue.push({ attempt, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      // Let the attempts finishing in this turn of the event loop join the batch.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const records = await this.dataSource.transaction(async (manager) => {
            const rows = await this.repository.recordAttempts(
              manager,
              batch.map((p) => p.attempt),
            );
            await this.endpoints.countAttempts(
              manager,
              batch.map((p) => toOutcome(p.attempt)),
            );
            return rows;
          });
          batch.forEach((p, i) => p.resolve(records[i]));
        } catch (error) {
          batch.forEach((p) => p.reject(error));
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

function toOutcome(attempt: NewAttempt): AttemptOutcome & { endpointId: number } {
  return {
    endpointId: attempt.endpointId,
    attemptedAt: attempt.result.attemptedAt,
    durationMs: attempt.result.durationMs,
    success: attempt.result.success,
  };
}
