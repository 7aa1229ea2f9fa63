import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { InvalidInputError } from '../common/domain-error';
import { DeliveryAttemptsModule, DeliveryService } from '../delivery/attempts';
import { WebhookEndpointsModule } from '../webhooks';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntOption, printJson } from './cli-io';

/** `delivery list --endpoint ID [--limit N]` → the endpoint's attempts, newest first (default 50, at most 1000). */
@SubCommand({ name: 'list', description: "List an endpoint's delivery attempts, newest first" })
export class DeliveryListCommand extends CommandRunner {
  constructor(private readonly deliveries: DeliveryService) {
    super();
  }

  async run(_params: string[], options: { endpoint?: string; limit?: string }): Promise<void> {
    const limit = options.limit === undefined ? 50 : positiveIntOption(options.limit, '--limit');
    if (limit > 1000) throw new InvalidInputError('--limit must be at most 1000');
    printJson(
      await this.deliveries.listAttempts(positiveIntOption(options.endpoint, '--endpoint'), limit),
    );
  }

  @Option({ flags: '--endpoint <id>', description: 'Endpoint id', required: true })
  parseEndpoint(value: string): string {
    return value;
  }

  @Option({ flags: '--limit <n>', description: 'How many attempts (default 50)' })
  parseLimit(value: string): string {
    return value;
  }
}

/** `delivery redeliver --id DELIVERY_ID` → the new attempt (same `webhook-id`). */
@SubCommand({ name: 'redeliver', description: 'Send a delivery again now' })
export class DeliveryRedeliverCommand extends CommandRunner {
  constructor(private readonly deliveries: DeliveryService) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    printJson(await this.deliveries.redeliver(positiveIntOption(options.id, '--id')));
  }

  @Option({ flags: '--id <id>', description: 'Delivery id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/** `delivery …` commands. */
@Command({
  name: 'delivery',
  description: 'Inspect and redeliver webhook deliveries',
  subCommands: [DeliveryListCommand, DeliveryRedeliverCommand],
})
export class DeliveryCommand extends CommandGroup {}

/** The `delivery` group: the attempt log and sender, no queue. */
export const DELIVERY_GROUP: CliGroup = {
  commands: [DeliveryCommand, DeliveryListCommand, DeliveryRedeliverCommand],
  imports: [DeliveryAttemptsModule, WebhookEndpointsModule],
};
