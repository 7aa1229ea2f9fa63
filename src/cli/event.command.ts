import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CampaignNotFoundError } from '../campaigns/campaign-errors';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { CampaignsService } from '../campaigns/campaigns.service';
import { InvalidInputError } from '../common/domain-error';
import { DeliveryModule, WebhookEventPublisher } from '../delivery/outbox';
import { CommandGroup, type CliGroup } from './cli-group';
import type { EventInput } from '../webhooks/event-schemas.constants';
import { EVENT_TYPES, isEventType } from '../webhooks/event-types.constants';
import { positiveIntOption, printJson, requiredOption } from './cli-io';

interface EventEmitOptions {
  campaign?: string;
  type?: string;
  data?: string;
}

/**
 * `event emit --campaign ID --type TYPE --data JSON` → `{id, type, campaign_id, created_at,
 * recorded, deliveries, skipped, filtered}`: `deliveries` to send (enabled endpoints), `skipped`
 * ones recorded for disabled endpoints, `filtered` endpoints whose payload filter left it out
 * (docs/webhooks.md#payload-filters). An event no endpoint subscribes to, or every subscribed
 * endpoint's filter left out, is not recorded (`id` null, `recorded` false), as with every event
 * (docs/webhooks.md#events).
 */
@SubCommand({ name: 'emit', description: 'Record and deliver an event' })
export class EventEmitCommand extends CommandRunner {
  constructor(
    private readonly publisher: WebhookEventPublisher,
    private readonly campaigns: CampaignsService,
  ) {
    super();
  }

  async run(_params: string[], options: EventEmitOptions): Promise<void> {
    const campaignId = positiveIntOption(options.campaign, '--campaign');
    const type = requiredOption(options.type, '--type');
    if (!isEventType(type))
      throw new InvalidInputError(`--type must be one of ${EVENT_TYPES.join(', ')}`);
    let data: unknown;
    try {
      data = JSON.parse(options.data ?? '{}');
    } catch {
      throw new InvalidInputError('--data must be a JSON object');
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data))
      throw new InvalidInputError('--data must be a JSON object');
    if (!(await this.campaigns.exists(campaignId))) throw new CampaignNotFoundError(campaignId);
    // The operator's `--data` is sent as given, not checked against the type's payload schema
    // (docs/webhooks.md#payload-schemas): the one publisher whose data the compiler cannot type.
    const input = { type, data } as EventInput;
    const recorded = await this.publisher.publish(campaignId, [input]);
    const event = recorded.events[0];
    printJson({
      id: event?.id ?? null,
      type,
      campaign_id: campaignId,
      created_at: event?.createdAt ?? null,
      recorded: event !== undefined,
      deliveries: event?.deliveries ?? 0,
      skipped: event?.skipped ?? 0,
      filtered: recorded.filtered,
    });
  }

  @Option({ flags: '--campaign <id>', description: 'Campaign id', required: true })
  parseCampaign(value: string): string {
    return value;
  }

  @Option({ flags: '--type <type>', description: 'Event type', required: true })
  parseType(value: string): string {
    return value;
  }

  @Option({ flags: '--data <json>', description: 'The event data (a JSON object)' })
  parseData(value: string): string {
    return value;
  }
}

/** `event …` commands. */
@Command({ name: 'event', description: 'Record webhook events', subCommands: [EventEmitCommand] })
export class EventCommand extends CommandGroup {}

/** The `event` group: the outbox publisher and its queue (Redis). */
export const EVENT_GROUP: CliGroup = {
  commands: [EventCommand, EventEmitCommand],
  imports: [CampaignsModule, DeliveryModule],
  needsQueue: true,
};
