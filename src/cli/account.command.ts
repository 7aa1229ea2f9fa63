import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CampaignsService } from '../campaigns/campaigns.service';
import { printJson, requiredOption } from './cli-io';

/** `account create --name N` → `{id, name, created_at}` (docs/cli.md). */
@SubCommand({ name: 'create', description: 'Create an account' })
export class AccountCreateCommand extends CommandRunner {
  constructor(private readonly campaigns: CampaignsService) {
    super();
  }

  async run(_params: string[], options: { name?: string }): Promise<void> {
    const account = await this.campaigns.createAccount(requiredOption(options.name, '--name'));
    printJson({ id: account.id, name: account.name, created_at: account.createdAt });
  }

  @Option({ flags: '--name <name>', description: 'Account name', required: true })
  parseName(value: string): string {
    return value;
  }
}

/** `account …` commands. */
@Command({ name: 'account', description: 'Manage accounts', subCommands: [AccountCreateCommand] })
export class AccountCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
