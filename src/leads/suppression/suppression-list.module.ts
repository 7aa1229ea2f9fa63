import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SuppressionEntry } from './suppression-entry.entity';
import { SuppressionList } from './suppression-list.service';
import { SuppressionRepository } from './suppression.repository';

/**
 * The accounts' suppression lists (docs/privacy.md#suppression-list): `suppression_entry`, as
 * keyed hashes. Imports nothing: the lead import checks it, the privacy feature fills it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SuppressionEntry])],
  providers: [SuppressionRepository, SuppressionList],
  exports: [SuppressionList],
})
export class SuppressionListModule {}
