import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { CampaignsService } from '../campaigns/campaigns.service';
import type { Campaign } from '../campaigns/campaign.entity';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntOption, printJson, requiredOption } from './cli-io';

/** A campaign as the CLI prints it. */
function campaignJson(campaign: Campaign): object {
  return {
    id: campaign.id,
    account_id: campaign.accountId,
    name: campaign.name,
    default_region: campaign.defaultRegion,
    created_at: campaign.createdAt,
  };
}

interface CampaignCreateOptions {
  account?: string;
  name?: string;
  region?: string;
}

/**
 * `campaign create --account ID --name N [--region US]` →
 * `{id, account_id, name, default_region, created_at}` (docs/cli.md#commands).
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
      CLI_ACTOR,
    );
    printJson(campaignJson(campaign));
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

/** `campaign list --account ID` → the account's campaigns, oldest first (docs/cli.md#commands). */
@SubCommand({ name: 'list', description: "List an account's campaigns" })
export class CampaignListCommand extends CommandRunner {
  constructor(private readonly campaigns: CampaignsService) {
    super();
  }

  async run(_params: string[], options: { account?: string }): Promise<void> {
    const campaigns = await this.campaigns.listCampaigns(
      positiveIntOption(options.account, '--account'),
    );
    printJson(campaigns.map(campaignJson));
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }
}

/** `campaign …` commands. */
@Command({
  name: 'campaign',
  description: 'Manage campaigns',
  subCommands: [CampaignCreateCommand, CampaignListCommand],
})
export class CampaignCommand extends CommandGroup {}

/** The `campaign` group: the campaigns module (which records `create` in the audit log). */
export const CAMPAIGN_GROUP: CliGroup = {
  commands: [CampaignCommand, CampaignCreateCommand, CampaignListCommand],
  imports: [CampaignsModule],
};
