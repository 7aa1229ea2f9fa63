import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { ApiKeysModule } from '../auth/api-keys.module';
import { ApiKeysService } from '../auth/api-keys.service';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntListOption, positiveIntOption, printJson } from './cli-io';

interface ApiKeyCreateOptions {
  account?: string;
  name?: string;
  campaigns?: string;
}

/**
 * `api-key create --account ID [--name N] [--campaigns 1,2]` →
 * `{id, api_key, key_prefix, account_id, name, campaign_ids, created_at}`. The only time the
 * key is ever shown (docs/api.md#authentication, docs/cli.md).
 */
@SubCommand({ name: 'create', description: 'Create an API key (printed once)' })
export class ApiKeyCreateCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async run(_params: string[], options: ApiKeyCreateOptions): Promise<void> {
    const accountId = positiveIntOption(options.account, '--account');
    const campaignIds =
      options.campaigns === undefined
        ? undefined
        : positiveIntListOption(options.campaigns, '--campaigns');
    const { apiKey, key } = await this.apiKeys.create(
      accountId,
      options.name,
      campaignIds,
      CLI_ACTOR,
    );
    printJson({
      id: apiKey.id,
      api_key: key,
      key_prefix: apiKey.keyPrefix,
      account_id: apiKey.accountId,
      name: apiKey.name,
      campaign_ids: apiKey.campaignIds,
      created_at: apiKey.createdAt,
    });
  }

  @Option({ flags: '--account <id>', description: 'Owning account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', description: 'A label for the key' })
  parseName(value: string): string {
    return value;
  }

  @Option({
    flags: '--campaigns <ids>',
    description: 'Limit the key to these campaign ids (comma-separated)',
  })
  parseCampaigns(value: string): string {
    return value;
  }
}

/** `api-key revoke --id ID` → `{id, revoked_at}`; its tokens stop working within 10 seconds (the key cache of api-keys.service.ts). */
@SubCommand({ name: 'revoke', description: 'Revoke an API key' })
export class ApiKeyRevokeCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    printJson(await this.apiKeys.revoke(positiveIntOption(options.id, '--id'), CLI_ACTOR));
  }

  @Option({ flags: '--id <id>', description: 'API key id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/**
 * `api-key list --account ID` → the account's keys, oldest first, revoked ones included, as
 * `{id, key_prefix, account_id, name, campaign_ids, created_at, revoked_at, last_used_at}`:
 * never the key (docs/cli.md#commands).
 */
@SubCommand({ name: 'list', description: "List an account's API keys (never the keys)" })
export class ApiKeyListCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async run(_params: string[], options: { account?: string }): Promise<void> {
    printJson(await this.apiKeys.list(positiveIntOption(options.account, '--account')));
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }
}

/** `api-key …` commands. */
@Command({
  name: 'api-key',
  description: 'Manage API keys',
  subCommands: [ApiKeyCreateCommand, ApiKeyListCommand, ApiKeyRevokeCommand],
})
export class ApiKeyCommand extends CommandGroup {}

/**
 * The `api-key` group: the API keys domain module (which records changes in the audit log), no
 * JWT or HTTP.
 */
export const API_KEY_GROUP: CliGroup = {
  commands: [ApiKeyCommand, ApiKeyCreateCommand, ApiKeyListCommand, ApiKeyRevokeCommand],
  imports: [ApiKeysModule],
};
