import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';

/**
 * Makes the validated {@link AppConfig} injectable everywhere. The entrypoint loads it once
 * (so a bad value stops the process before Nest starts) and hands it in here.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
