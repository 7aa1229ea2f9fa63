import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SuppressionEntry, SuppressionListVersion } from './suppression-entry.entity';
import { SuppressionFilters } from './suppression-filters';
import { SuppressionList } from './suppression-list.service';
import { SuppressionRepository } from './suppression.repository';

/**
 * The accounts' suppression lists (docs/privacy.md#suppression-list): `suppression_entry`, as
 * keyed hashes with their fingerprints, and `suppression_list`, each list's version. Imports nothing: the lead import checks it, the privacy feature fills it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SuppressionEntry, SuppressionListVersion])],
  providers: [SuppressionRepository, SuppressionFilters, SuppressionList],
  exports: [SuppressionList],
})
export class SuppressionListModule {}
