import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth';
import { IdempotencyModule } from '../../idempotency';
import { LeadImportModule } from '../upload';
import { LeadsController } from './lead-upload.controller';

/**
 * The public upload route (`POST /api/v1/leads/upload`, docs/api.md#lead-upload): the HTTP
 * edge over {@link LeadImportModule}, with the bearer and campaign guards and the
 * `Idempotency-Key` interceptor. API process only.
 */
@Module({
  imports: [AuthModule, IdempotencyModule, LeadImportModule],
  controllers: [LeadsController],
})
export class LeadsModule {}
