import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CampaignsService } from '../campaigns/campaigns.service';
import { positiveIntOption, printJson, requiredOption } from './cli-io';

interface CampaignCreateOptions {
  account?: string;
  name?: string;
  region?: string;
}

/**
 * `campaign create --account ID --name N [--region US]` →
 * `{id, account_id, name, default_region, created_at}` (docs/cli.md).
 */
@SubCommand({ name: 'create', description: 'Create a campaign of an account' })
export class CampaignCreateCommand extends CommandRunner {
  constructor(private readonly campaigns: CampaignsService) {
    super();
  }

  async run(_params: string[], options: CampaignCreateOptions): Promise<void> {
    const campaign = await this.campaigns.createCampaign(
      positiveIntOption(options.account, '--account'),
      requiredOption(options.name, '--name'),
      options.region ?? 'US',
    );
    printJson({
      id: campaign.id,
      account_id: campaign.accountId,
      name: campaign.name,
      default_region: campaign.defaultRegion,
      created_at: campaign.createdAt,
    });
  }

  @Option({ flags: '--account <id>', description: 'Owning account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', description: 'Campaign name', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({
    flags: '--region <code>',
    description: 'Region for phones without + (ISO 3166-1 alpha-2, default US)',
  })
  parseRegion(value: string): string {
    return value;
  }
}

/** `campaign …` commands. */
@Command({
  name: 'campaign',
  description: 'Manage campaigns',
  subCommands: [CampaignCreateCommand],
})
export class CampaignCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
