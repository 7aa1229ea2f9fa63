import { Module } from '@nestjs/common';
import { ImportRejectionRetention } from './import-rejection-retention.service';
import { ImportRejectionsRepository } from './import-rejections.repository';

/**
 * {@link ImportRejectionRetention} as a module of its own: it needs only the caller's session.
 * The process roots that run the delivery worker import it, and the retention pass finds its
 * `@RetentionParticipant` provider there: delivery imports nothing of leads
 * (docs/operations.md#retention).
 */
@Module({
  providers: [ImportRejectionsRepository, ImportRejectionRetention],
  exports: [ImportRejectionRetention],
})
export class ImportRejectionRetentionModule {}
