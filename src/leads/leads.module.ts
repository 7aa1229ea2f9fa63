import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { Lead } from './lead.entity';
import { LeadImport } from './lead-import.entity';
import { LeadImportService } from './lead-import.service';
import { LeadsController } from './leads.controller';
import { LeadsRepository } from './leads.repository';

/** Lead uploads: validation, the bulk writer, the import (compliance) record. */
@Module({
  imports: [TypeOrmModule.forFeature([Lead, LeadImport]), AuthModule],
  controllers: [LeadsController],
  providers: [LeadImportService, LeadsRepository],
  exports: [LeadImportService],
})
export class LeadsModule {}
