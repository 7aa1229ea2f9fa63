import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './database-options';
import { DeploymentIdentity, readDeploymentIdentity } from './deployment-identity';

/**
 * The PostgreSQL connection pool (TypeORM), from `DATABASE_URL`, and the deployment identity
 * read from it at start (global: the queue and the rate limiter name their keys after it).
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...buildDataSourceOptions(config.databaseUrl),
        // Each module registers its entities with TypeOrmModule.forFeature: database/ names none.
        autoLoadEntities: true,
        // Start even when PostgreSQL is briefly down: requests get 503 until it is back.
        retryAttempts: 0,
      }),
    }),
  ],
  providers: [
    {
      provide: DeploymentIdentity,
      inject: [DataSource, AppConfig],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        readDeploymentIdentity(dataSource, config.queuePrefix),
    },
  ],
  exports: [DeploymentIdentity],
})
export class DatabaseModule {}
