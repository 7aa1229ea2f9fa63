import { DynamicModule, Module, type Type } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { ENTITY_METADATA } from '../entities';
import type { CliGroup } from './cli-group';

/**
 * The operator CLI (docs/cli.md): the same domain services as the API, no HTTP. Built for the
 * command groups a run needs, so a simple command loads only its own modules.
 */
@Module({})
export class CliModule {
  /**
   * @param groups the command groups of this run.
   * @param queue `QueueRootModule` when a group queues work (loaded lazily by the caller), else empty.
   */
  static forRoot(
    config: AppConfig,
    groups: CliGroup[],
    queue: Array<Type<unknown> | DynamicModule> = [],
  ): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        ENTITY_METADATA,
        ...queue,
        ...new Set(groups.flatMap((group) => group.imports)),
      ],
      providers: groups.flatMap((group) => group.commands),
    };
  }
}
