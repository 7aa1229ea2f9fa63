import { Module } from '@nestjs/common';
import { ImportRejectionRetention } from './import-rejection-retention.service';
import { ImportRejectionsRepository } from './import-rejections.repository';

/**
 * {@link ImportRejectionRetention} as a module of its own: it needs only the caller's session,
 * so the delivery worker imports it without the lead import domain (which imports delivery).
 */
@Module({
  providers: [ImportRejectionsRepository, ImportRejectionRetention],
  exports: [ImportRejectionRetention],
})
export class ImportRejectionRetentionModule {}
