import { readFileSync } from 'node:fs';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { InvalidInputError } from '../common/domain-error';
import { PrivacyModule } from '../privacy/privacy.module';
import { ErasureService } from '../privacy/erasure.service';
import { Suppressions, SUPPRESSION_CSV_MAX_BYTES } from '../privacy/suppressions.service';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntOption, printJson } from './cli-io';

/** The options that name a person: `--phone`, `--email`, `--region`. */
interface PersonOptions {
  account?: string;
  phone?: string;
  email?: string;
  region?: string;
}

/** The options every person command takes, declared once. */
abstract class PersonCommand extends CommandRunner {
  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({ flags: '--phone <phone>', description: 'The phone, in any format uploads accept' })
  parsePhone(value: string): string {
    return value;
  }

  @Option({ flags: '--email <email>', description: 'The email' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({
    flags: '--region <code>',
    description: 'Region for a phone without + (ISO 3166-1 alpha-2) when no campaign is named',
  })
  parseRegion(value: string): string {
    return value;
  }
}

/**
 * `erasure create --account ID (--phone P | --email E) [--campaign ID] [--region CC]
 * [--no-suppress]` → the erasure receipt (docs/cli.md#commands, docs/privacy.md#erasure).
 */
@SubCommand({ name: 'create', description: 'Erase a person by phone and/or email' })
export class ErasureCreateCommand extends PersonCommand {
  constructor(private readonly erasures: ErasureService) {
    super();
  }

  async run(
    _params: string[],
    options: PersonOptions & { campaign?: string; suppress?: boolean },
  ): Promise<void> {
    printJson(
      await this.erasures.erase(
        positiveIntOption(options.account, '--account'),
        {
          campaignId:
            options.campaign === undefined
              ? null
              : positiveIntOption(options.campaign, '--campaign'),
          phone: options.phone,
          email: options.email,
          region: options.region,
          suppress: options.suppress ?? true,
        },
        CLI_ACTOR,
      ),
    );
  }

  @Option({ flags: '--campaign <id>', description: 'Erase in this campaign only' })
  parseCampaign(value: string): string {
    return value;
  }

  @Option({
    flags: '--no-suppress',
    description: 'Do not add the person to the suppression list',
  })
  parseSuppress(): boolean {
    return false;
  }
}

/** `erasure list --account ID [--limit N]` → the account's receipts, newest first. */
@SubCommand({ name: 'list', description: "List an account's erasure receipts" })
export class ErasureListCommand extends CommandRunner {
  constructor(private readonly erasures: ErasureService) {
    super();
  }

  async run(_params: string[], options: { account?: string; limit?: string }): Promise<void> {
    printJson(
      await this.erasures.list(positiveIntOption(options.account, '--account'), options.limit),
    );
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({ flags: '--limit <n>', description: 'At most this many (default 50, at most 200)' })
  parseLimit(value: string): string {
    return value;
  }
}

/** `erasure …` commands. */
@Command({
  name: 'erasure',
  description: 'Erase people and list the receipts',
  subCommands: [ErasureCreateCommand, ErasureListCommand],
})
export class ErasureCommand extends CommandGroup {}

/** `suppression add --account ID (--phone P | --email E) [--region CC]` → `{added}`. */
@SubCommand({
  name: 'add',
  description: "Add a phone and/or email to an account's suppression list",
})
export class SuppressionAddCommand extends PersonCommand {
  constructor(private readonly suppressions: Suppressions) {
    super();
  }

  async run(_params: string[], options: PersonOptions): Promise<void> {
    printJson(
      await this.suppressions.add(
        positiveIntOption(options.account, '--account'),
        options,
        CLI_ACTOR,
      ),
    );
  }
}

/** `suppression remove --account ID (--phone P | --email E) [--region CC]` → `{removed}`. */
@SubCommand({
  name: 'remove',
  description: "Remove a phone and/or email from an account's suppression list",
})
export class SuppressionRemoveCommand extends PersonCommand {
  constructor(private readonly suppressions: Suppressions) {
    super();
  }

  async run(_params: string[], options: PersonOptions): Promise<void> {
    printJson(
      await this.suppressions.remove(
        positiveIntOption(options.account, '--account'),
        options,
        CLI_ACTOR,
      ),
    );
  }
}

/** `suppression import --account ID --file PATH [--region CC]` → the import's counts. */
@SubCommand({ name: 'import', description: 'Add the phones and emails of a CSV file' })
export class SuppressionImportCommand extends CommandRunner {
  constructor(private readonly suppressions: Suppressions) {
    super();
  }

  async run(
    _params: string[],
    options: { account?: string; file?: string; region?: string },
  ): Promise<void> {
    const account = positiveIntOption(options.account, '--account');
    if (options.file === undefined) throw InvalidInputError.field('file', 'is required');
    const file = readFileSync(options.file, { flag: 'r' });
    if (file.length > SUPPRESSION_CSV_MAX_BYTES) {
      throw InvalidInputError.field(
        'file',
        `must be at most ${SUPPRESSION_CSV_MAX_BYTES / 1024 / 1024} MiB`,
      );
    }
    printJson(await this.suppressions.importCsv(account, file, options.region, CLI_ACTOR));
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({ flags: '--file <path>', description: 'The CSV file (at most 5 MiB)', required: true })
  parseFile(value: string): string {
    return value;
  }

  @Option({ flags: '--region <code>', description: 'Region for phones without +' })
  parseRegion(value: string): string {
    return value;
  }
}

/** `suppression count --account ID` → `{entries}`: the list's size, never its entries. */
@SubCommand({ name: 'count', description: "Count an account's suppression list" })
export class SuppressionCountCommand extends CommandRunner {
  constructor(private readonly suppressions: Suppressions) {
    super();
  }

  async run(_params: string[], options: { account?: string }): Promise<void> {
    printJson(await this.suppressions.count(positiveIntOption(options.account, '--account')));
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }
}

/** `suppression …` commands. */
@Command({
  name: 'suppression',
  description: "Manage an account's suppression list",
  subCommands: [
    SuppressionAddCommand,
    SuppressionRemoveCommand,
    SuppressionImportCommand,
    SuppressionCountCommand,
  ],
})
export class SuppressionCommand extends CommandGroup {}

/**
 * The `erasure` and `suppression` groups: the privacy module, which loads the lead import and
 * with it the delivery queue's module (so the queue's root is loaded, never used to send).
 */
export const ERASURE_GROUP: CliGroup = {
  commands: [ErasureCommand, ErasureCreateCommand, ErasureListCommand],
  imports: [PrivacyModule],
  needsQueue: true,
};

/** See {@link ERASURE_GROUP}. */
export const SUPPRESSION_GROUP: CliGroup = {
  commands: [
    SuppressionCommand,
    SuppressionAddCommand,
    SuppressionRemoveCommand,
    SuppressionImportCommand,
    SuppressionCountCommand,
  ],
  imports: [PrivacyModule],
  needsQueue: true,
};
