import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth';
import { PrivacyModule } from '..';
import { ErasureRequestsController } from './erasure-requests.controller';

/**
 * The public API's erasure routes (docs/privacy.md#erasure): `ErasureRequestsController` under
 * `/api/v1/erasure-requests`, behind the bearer token (`AuthModule`).
 */
@Module({
  imports: [AuthModule, PrivacyModule],
  controllers: [ErasureRequestsController],
})
export class PrivacyApiModule {}
