import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { CampaignsService } from '../campaigns/campaigns.service';
import { InvalidInputError } from '../common/domain-error';
import { PortalLinks } from '../portal/portal-links.service';
import { PortalModule } from '../portal/portal.module';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntListOption, positiveIntOption, printJson, requiredOption } from './cli-io';

interface PortalCreateOptions {
  account?: string;
  baseUrl?: string;
  campaigns?: string;
  role?: string;
  expiresIn?: string;
  subjectId?: string;
  subjectName?: string;
  subjectEmail?: string;
  pages?: string;
  parentOrigin?: string;
}

/**
 * The service's own address as the CLI is told it (`--base-url`): an `http(s)` origin, to which
 * the portal URL's path is added.
 * @throws InvalidInputError naming `--base-url`.
 */
function baseUrlOption(value: string | undefined): string {
  const text = requiredOption(value, '--base-url');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError(`--base-url must be the service's URL, got "${text}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidInputError(`--base-url must be an http or https URL, got "${text}"`);
  }
  return url.origin;
}

/**
 * `portal create --account ID --base-url URL --role R --expires-in S --subject-id X
 * [--campaigns 1,2] [--subject-name N] [--subject-email E] [--pages endpoints,deliveries]
 * [--parent-origin O]` → `{id, url, expires_at}` (docs/cli.md#commands): a single-use portal
 * link, as `POST /api/v1/portal/sessions` mints one, recorded by the operator (`cli`). The
 * secret is only in the URL's fragment, printed this once.
 */
@SubCommand({ name: 'create', description: 'Mint a single-use portal link (printed once)' })
export class PortalCreateCommand extends CommandRunner {
  constructor(private readonly portals: PortalLinks) {
    super();
  }

  async run(_params: string[], options: PortalCreateOptions): Promise<void> {
    const accountId = positiveIntOption(options.account, '--account');
    const baseUrl = baseUrlOption(options.baseUrl);
    const expiresIn = positiveIntOption(options.expiresIn, '--expires-in');
    const link = await this.portals.mint(
      { accountId, campaignIds: null, keyPrefix: null },
      {
        campaign_ids:
          options.campaigns === undefined
            ? undefined
            : positiveIntListOption(options.campaigns, '--campaigns'),
        role: requiredOption(options.role, '--role'),
        expires_in: expiresIn,
        subject: {
          id: requiredOption(options.subjectId, '--subject-id'),
          name: options.subjectName,
          email: options.subjectEmail,
        },
        pages: options.pages?.split(',').map((page) => page.trim()),
        parent_origin: options.parentOrigin,
      },
      CLI_ACTOR,
    );
    printJson({
      id: link.id,
      url: `${baseUrl}/portal/${link.id}#${link.secret}`,
      expires_at: link.expiresAt,
    });
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({
    flags: '--base-url <url>',
    description: 'The service’s public URL, e.g. https://campaigns.example.com',
    required: true,
  })
  parseBaseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--campaigns <ids>', description: 'Campaign ids shown (default: all)' })
  parseCampaigns(value: string): string {
    return value;
  }

  @Option({ flags: '--role <role>', description: 'viewer or admin', required: true })
  parseRole(value: string): string {
    return value;
  }

  @Option({ flags: '--expires-in <seconds>', description: '1 to 3600', required: true })
  parseExpiresIn(value: string): string {
    return value;
  }

  @Option({ flags: '--subject-id <id>', description: 'Your own user’s id', required: true })
  parseSubjectId(value: string): string {
    return value;
  }

  @Option({ flags: '--subject-name <name>', description: 'Your user’s name' })
  parseSubjectName(value: string): string {
    return value;
  }

  @Option({ flags: '--subject-email <email>', description: 'Your user’s email' })
  parseSubjectEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--pages <pages>', description: 'endpoints,deliveries (default: both)' })
  parsePages(value: string): string {
    return value;
  }

  @Option({ flags: '--parent-origin <origin>', description: 'One of the account’s portal origins' })
  parseParentOrigin(value: string): string {
    return value;
  }
}

/** `portal revoke --id ID` → `{id, revoked: true}`: the link and its session end at once. */
@SubCommand({ name: 'revoke', description: 'Revoke a portal link and its session' })
export class PortalRevokeCommand extends CommandRunner {
  constructor(private readonly portals: PortalLinks) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    const id = requiredOption(options.id, '--id');
    await this.portals.revoke(id, null, CLI_ACTOR);
    printJson({ id, revoked: true });
  }

  @Option({ flags: '--id <id>', description: 'Portal link id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/**
 * `portal origins-set --account ID --origins a,b` → `{account_id, origins}`: the origins allowed
 * to frame the account's portal (empty string: none), recorded as
 * `account.portal_origins_update`.
 */
@SubCommand({ name: 'origins-set', description: 'Set the origins allowed to frame the portal' })
export class PortalOriginsSetCommand extends CommandRunner {
  constructor(private readonly campaigns: CampaignsService) {
    super();
  }

  async run(_params: string[], options: { account?: string; origins?: string }): Promise<void> {
    const accountId = positiveIntOption(options.account, '--account');
    if (options.origins === undefined) throw new InvalidInputError('--origins is required');
    const list = options.origins
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== '');
    const origins = await this.campaigns.setPortalOrigins(accountId, list, CLI_ACTOR);
    printJson({ account_id: accountId, origins });
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({
    flags: '--origins <origins>',
    description: 'Comma-separated https origins ("" for none)',
    required: true,
  })
  parseOrigins(value: string): string {
    return value;
  }
}

/** `portal origins-list --account ID` → `{account_id, origins}`. */
@SubCommand({ name: 'origins-list', description: 'List the origins allowed to frame the portal' })
export class PortalOriginsListCommand extends CommandRunner {
  constructor(private readonly campaigns: CampaignsService) {
    super();
  }

  async run(_params: string[], options: { account?: string }): Promise<void> {
    const accountId = positiveIntOption(options.account, '--account');
    printJson({ account_id: accountId, origins: await this.campaigns.portalOrigins(accountId) });
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }
}

/** `portal …` commands. */
@Command({
  name: 'portal',
  description: 'Mint and revoke embedded portal links; set the portal origins',
  subCommands: [
    PortalCreateCommand,
    PortalRevokeCommand,
    PortalOriginsSetCommand,
    PortalOriginsListCommand,
  ],
})
export class PortalCommand extends CommandGroup {}

/** The `portal` group: the portal and campaigns domain modules, no queue, JWT or HTTP. */
export const PORTAL_GROUP: CliGroup = {
  commands: [
    PortalCommand,
    PortalCreateCommand,
    PortalRevokeCommand,
    PortalOriginsSetCommand,
    PortalOriginsListCommand,
  ],
  imports: [PortalModule, CampaignsModule],
};
