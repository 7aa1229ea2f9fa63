import { Module } from '@nestjs/common';
import { LeadDirectoryRepository } from './lead-directory.repository';
import { LeadDirectory } from './lead-directory.service';

/**
 * {@link LeadDirectory} as a module of its own: it needs only the `DataSource`, so the
 * dashboard reads leads without the upload's providers.
 */
@Module({
  providers: [LeadDirectoryRepository, LeadDirectory],
  exports: [LeadDirectory],
})
export class LeadDirectoryModule {}
