import { Module } from '@nestjs/common';
import { LeadImportsRepository } from './lead-import-history.repository';
import { LeadImport } from '../lead-import.entity';
import { LeadImportRejection } from '../lead-import-rejection.entity';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LeadImports } from './lead-import-history.service';

/** The import history's reads ({@link LeadImports}), for the dashboard. */
@Module({
  imports: [TypeOrmModule.forFeature([LeadImport, LeadImportRejection])],
  providers: [LeadImportsRepository, LeadImports],
  exports: [LeadImports],
})
export class LeadImportsModule {}
