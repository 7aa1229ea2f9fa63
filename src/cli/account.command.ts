import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { CampaignsService } from '../campaigns/campaigns.service';
import type { Account } from '../campaigns/account.entity';
import { CommandGroup, type CliGroup } from './cli-group';
import { printJson, requiredOption } from './cli-io';

/** An account as the CLI prints it: `{id, name, created_at}`. */
function accountJson(account: Account): object {
  return { id: account.id, name: account.name, created_at: account.createdAt };
}

/** `account create --name N` → `{id, name, created_at}` (docs/cli.md#commands). */
@SubCommand({ name: 'create', description: 'Create an account' })
export class AccountCreateCommand extends CommandRunner {
  constructor(private readonly campaigns: CampaignsService) {
    super();
  }

  async run(_params: string[], options: { name?: string }): Promise<void> {
    const account = await this.campaigns.createAccount(
      requiredOption(options.name, '--name'),
      CLI_ACTOR,
    );
    printJson(accountJson(account));
  }

  @Option({ flags: '--name <name>', description: 'Account name', required: true })
  parseName(value: string): string {
    return value;
  }
}

/** `account list` → every account, oldest first (docs/cli.md#commands). */
@SubCommand({ name: 'list', description: 'List the accounts' })
export class AccountListCommand extends CommandRunner {
  constructor(private readonly campaigns: CampaignsService) {
    super();
  }

  async run(): Promise<void> {
    printJson((await this.campaigns.listAccounts()).map(accountJson));
  }
}

/** `account …` commands. */
@Command({
  name: 'account',
  description: 'Manage accounts',
  subCommands: [AccountCreateCommand, AccountListCommand],
})
export class AccountCommand extends CommandGroup {}

/** The `account` group: the campaigns module (which records `create` in the audit log). */
export const ACCOUNT_GROUP: CliGroup = {
  commands: [AccountCommand, AccountCreateCommand, AccountListCommand],
  imports: [CampaignsModule],
};
