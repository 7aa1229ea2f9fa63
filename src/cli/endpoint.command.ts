import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { InvalidInputError } from '../common/domain-error';
import { DeliveryAttemptsModule } from '../delivery/attempts/delivery-attempts.module';
import { DeliveryService } from '../delivery/attempts/delivery.service';
import {
  WebhookEndpointAdmin,
  type EndpointChanges,
} from '../webhooks/webhook-endpoint-admin.service';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntOption, printJson, requiredOption } from './cli-io';

function eventList(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}

/**
 * A throttle limit as typed (docs/webhooks.md#throttling): `none` for no limit (null), else the
 * number, which the service checks; undefined when not given.
 */
function throttleOption(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  return value.trim().toLowerCase() === 'none' ? null : Number(value.trim());
}

/**
 * The throttle's options, `--max-per-second` and `--max-in-flight`, shared by `endpoint create`
 * and `endpoint update` (docs/webhooks.md#throttling).
 */
abstract class ThrottleOptionsCommand extends CommandRunner {
  @Option({
    flags: '--max-per-second <n>',
    description: 'Most deliveries per second, 1-1000 ("none": no limit)',
  })
  parseMaxPerSecond(value: string): string {
    return value;
  }

  @Option({
    flags: '--max-in-flight <n>',
    description: 'Most attempts in flight at once, 1-100 ("none": no limit)',
  })
  parseMaxInFlight(value: string): string {
    return value;
  }
}

interface EndpointCreateOptions {
  campaign?: string;
  url?: string;
  events?: string;
  description?: string;
  disabled?: boolean;
  maxPerSecond?: string;
  maxInFlight?: string;
}

/**
 * `endpoint create --campaign ID --url URL --events T1,T2 [--description D] [--disabled]
 * [--max-per-second N] [--max-in-flight N]` → the endpoint plus `secret`, the only time the signing secret is shown (docs/cli.md).
 */
@SubCommand({
  name: 'create',
  description: 'Create a webhook endpoint (prints its signing secret once)',
})
export class EndpointCreateCommand extends ThrottleOptionsCommand {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: EndpointCreateOptions): Promise<void> {
    const { endpoint, secret } = await this.endpoints.create(
      positiveIntOption(options.campaign, '--campaign'),
      {
        url: requiredOption(options.url, '--url'),
        events: eventList(requiredOption(options.events, '--events')),
        description: options.description ?? null,
        enabled: !options.disabled,
        maxDeliveriesPerSecond: throttleOption(options.maxPerSecond),
        maxInFlight: throttleOption(options.maxInFlight),
      },
      CLI_ACTOR,
    );
    printJson({ ...endpoint, secret });
  }

  @Option({ flags: '--campaign <id>', description: 'Campaign id', required: true })
  parseCampaign(value: string): string {
    return value;
  }

  @Option({ flags: '--url <url>', description: 'Destination (http or https)', required: true })
  parseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--events <types>', description: 'Comma-separated event types', required: true })
  parseEvents(value: string): string {
    return value;
  }

  @Option({ flags: '--description <text>', description: 'Optional label' })
  parseDescription(value: string): string {
    return value;
  }

  @Option({ flags: '--disabled', description: 'Create it disabled' })
  parseDisabled(): boolean {
    return true;
  }
}

interface EndpointUpdateOptions {
  id?: string;
  url?: string;
  events?: string;
  description?: string;
  enable?: boolean;
  disable?: boolean;
  maxPerSecond?: string;
  maxInFlight?: string;
}

/**
 * `endpoint update --id ID [--url] [--events] [--description] [--enable|--disable]
 * [--max-per-second N|none] [--max-in-flight N|none]` → the endpoint.
 */
@SubCommand({ name: 'update', description: 'Change a webhook endpoint' })
export class EndpointUpdateCommand extends ThrottleOptionsCommand {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: EndpointUpdateOptions): Promise<void> {
    if (options.enable && options.disable)
      throw new InvalidInputError('--enable and --disable cannot be used together');
    const changes: EndpointChanges = {
      url: options.url,
      events: options.events === undefined ? undefined : eventList(options.events),
      description: options.description,
      enabled: options.enable ? true : options.disable ? false : undefined,
      maxDeliveriesPerSecond: throttleOption(options.maxPerSecond),
      maxInFlight: throttleOption(options.maxInFlight),
    };
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new InvalidInputError(
        'nothing to change: give --url, --events, --description, --enable, --disable, --max-per-second or --max-in-flight',
      );
    }
    printJson(
      await this.endpoints.update(positiveIntOption(options.id, '--id'), changes, CLI_ACTOR),
    );
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }

  @Option({ flags: '--url <url>', description: 'New destination' })
  parseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--events <types>', description: 'New comma-separated event types' })
  parseEvents(value: string): string {
    return value;
  }

  @Option({ flags: '--description <text>', description: 'New label ("" clears it)' })
  parseDescription(value: string): string {
    return value;
  }

  @Option({ flags: '--enable', description: 'Resume deliveries' })
  parseEnable(): boolean {
    return true;
  }

  @Option({ flags: '--disable', description: 'Stop deliveries' })
  parseDisable(): boolean {
    return true;
  }
}

/** `endpoint delete --id ID` → `{id, deleted: true}` (its deliveries and attempts go too). */
@SubCommand({ name: 'delete', description: 'Delete a webhook endpoint' })
export class EndpointDeleteCommand extends CommandRunner {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    printJson(await this.endpoints.delete(positiveIntOption(options.id, '--id'), CLI_ACTOR));
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/** `endpoint rotate-secret --id ID` → `{id, secret}`; the previous secret stays valid 24 hours. */
@SubCommand({
  name: 'rotate-secret',
  description: 'Replace the signing secret (old one valid 24 h)',
})
export class EndpointRotateSecretCommand extends CommandRunner {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    const { id, secret } = await this.endpoints.rotateSecret(
      positiveIntOption(options.id, '--id'),
      CLI_ACTOR,
    );
    printJson({ id, secret });
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/** `endpoint ping --id ID` → the attempt `{success, status_code, duration_ms, …}`; it counts in health. */
@SubCommand({ name: 'ping', description: 'Send a signed test message now' })
export class EndpointPingCommand extends CommandRunner {
  constructor(private readonly deliveries: DeliveryService) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    printJson(await this.deliveries.ping(positiveIntOption(options.id, '--id')));
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/** `endpoint list --campaign ID` → the campaign's endpoints ordered by id, as the API lists them. */
@SubCommand({ name: 'list', description: "List a campaign's webhook endpoints" })
export class EndpointListCommand extends CommandRunner {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: { campaign?: string }): Promise<void> {
    printJson(await this.endpoints.list(positiveIntOption(options.campaign, '--campaign')));
  }

  @Option({ flags: '--campaign <id>', description: 'Campaign id', required: true })
  parseCampaign(value: string): string {
    return value;
  }
}

const ENDPOINT_SUBCOMMANDS = [
  EndpointCreateCommand,
  EndpointListCommand,
  EndpointUpdateCommand,
  EndpointDeleteCommand,
  EndpointRotateSecretCommand,
  EndpointPingCommand,
];

/** `endpoint …` commands. */
@Command({
  name: 'endpoint',
  description: 'Manage webhook endpoints',
  subCommands: ENDPOINT_SUBCOMMANDS,
})
export class EndpointCommand extends CommandGroup {}

/**
 * The `endpoint` group: endpoints and the attempt log for `ping` (no queue); the endpoints
 * service brings the audit log it records changes in.
 */
export const ENDPOINT_GROUP: CliGroup = {
  commands: [EndpointCommand, ...ENDPOINT_SUBCOMMANDS],
  imports: [DeliveryAttemptsModule],
};
