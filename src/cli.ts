import 'reflect-metadata';
import { config as loadDotenv } from 'dotenv';
import { CommandFactory } from 'nest-commander';
import { loadConfig } from './config/app-config';
import { prepareDatabase } from './database/prepare-database';
import { CliModule } from './cli/cli.module';
import { StderrLogger } from './cli/cli-io';

/**
 * Operator CLI entrypoint (`npm run cli -- <command>`, `node dist/cli.js <command>`), docs/cli.md:
 * one JSON document on stdout, logs on stderr, exit 1 with a one-line message on bad input.
 */
async function main(): Promise<void> {
  loadDotenv({ quiet: true });
  const config = loadConfig();
  // Configuration warnings are for servers; a CLI run stays quiet on stderr unless it fails.
  config.warnings = [];
  await prepareDatabase(config.databaseUrl);
  await CommandFactory.run(CliModule.forRoot(config), {
    logger: new StderrLogger(),
    cliName: 'campaign-api',
    errorHandler: (error: Error & { exitCode?: number }) => process.exit(error.exitCode ?? 1),
    serviceErrorHandler: (error: Error) => fail(error),
  });
}

function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message.split('\n')[0]}\n`);
  process.exit(1);
}

main().catch(fail);
