import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './database-options';

/** The PostgreSQL connection pool (TypeORM), from `DATABASE_URL`. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...buildDataSourceOptions(config.databaseUrl),
        // Start even when PostgreSQL is briefly down: requests get 503 until it is back.
        retryAttempts: 0,
      }),
    }),
  ],
})
export class DatabaseModule {}
