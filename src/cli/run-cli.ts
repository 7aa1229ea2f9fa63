import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { config as loadDotenv } from 'dotenv';
import type { CliGroup } from './cli-group';
import { CLI_HELP } from './cli-help';
import { cliErrorLine, StderrLogger } from './cli-io';
import { inRootSpan, shutdownTracing } from '../tracing/trace-hooks';

/**
 * The command groups, each loaded only when named on the command line: `account create` never
 * loads the queue, the sender or the HTTP stack (docs/cli.md#running-the-cli).
 */
const GROUPS: Record<string, () => Promise<CliGroup>> = {
  account: async () => (await import('./account.command')).ACCOUNT_GROUP,
  campaign: async () => (await import('./campaign.command')).CAMPAIGN_GROUP,
  'api-key': async () => (await import('./api-key.command')).API_KEY_GROUP,
  endpoint: async () => (await import('./endpoint.command')).ENDPOINT_GROUP,
  delivery: async () => (await import('./delivery.command')).DELIVERY_GROUP,
  event: async () => (await import('./event.command')).EVENT_GROUP,
  user: async () => (await import('./user.command')).USER_GROUP,
  erasure: async () => (await import('./privacy.command')).ERASURE_GROUP,
  suppression: async () => (await import('./privacy.command')).SUPPRESSION_GROUP,
  portal: async () => (await import('./portal.command')).PORTAL_GROUP,
};

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Runs the operator CLI (docs/cli.md) on `process.argv`: one JSON document on stdout, logs on
 * stderr, exit 1 with a one-line message on bad input. Started by `src/cli.ts`.
 */
export async function runCli(): Promise<void> {
  const [first] = process.argv.slice(2);
  if (first === '--version' || first === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  const known = first !== undefined && Object.hasOwn(GROUPS, first);
  if (first !== undefined && !first.startsWith('-') && !known) {
    throw new Error(
      `unknown command "${first}"; use one of: ${Object.keys(GROUPS).join(', ')} (see --help)`,
    );
  }
  // Help (or no command) lists every group; a command loads only its own.
  const groups = await Promise.all(
    known ? [GROUPS[first]()] : Object.values(GROUPS).map((load) => load()),
  );

  loadDotenv({ quiet: true });
  const { loadConfig } = await import('../config/app-config');
  const config = loadConfig();
  // Configuration warnings are for servers; a CLI run stays quiet on stderr unless it fails.
  config.warnings = [];
  const [{ CommandFactory }, { prepareDatabase }, { CliModule }] = await Promise.all([
    import('nest-commander'),
    import('../database/prepare-database'),
    import('./cli.module'),
  ]);
  await prepareDatabase(config.databaseUrl);
  // Only `event emit` queues work: the others never load BullMQ or connect to Redis.
  const queue = groups.some((group) => group.needsQueue)
    ? [(await import('../queue/queue-root.module')).QueueRootModule]
    : [];
  // With tracing on, the command is one trace (docs/operations.md#traces), exported before exit.
  await inRootSpan(commandSpanName(known ? first : undefined), () =>
    CommandFactory.run(CliModule.forRoot(config, groups, queue), {
      logger: new StderrLogger(),
      cliName: 'campaign-api',
      version: packageVersion(),
      helpConfiguration: CLI_HELP,
      errorHandler: (error: Error & { exitCode?: number }) => process.exit(error.exitCode ?? 1),
      serviceErrorHandler: (error: Error) => fail(error),
    }),
  );
  await shutdownTracing();
}

/**
 * The name of a CLI command's span: `cli <group> <command>` (`cli event emit`), from the
 * command line's first two words when they are a known group and a plain command name, never
 * an argument's value.
 */
export function commandSpanName(group: string | undefined): string {
  if (group === undefined) return 'cli';
  const command = process.argv[3];
  return command !== undefined && /^[a-z][a-z-]{0,39}$/.test(command)
    ? `cli ${group} ${command}`
    : `cli ${group}`;
}

/** Prints {@link cliErrorLine} for `error` on stderr and exits 1. */
export function fail(error: unknown): never {
  process.stderr.write(`${cliErrorLine(error)}\n`);
  process.exit(1);
}
