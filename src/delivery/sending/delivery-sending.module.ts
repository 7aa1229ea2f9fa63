import { Module } from '@nestjs/common';
import { WebhookSender } from './webhook.sender';

/**
 * Sending a signed webhook request (docs/webhooks.md#signing): {@link WebhookSender} with the
 * message signer, the address policy, the outbound proxy tunnel, custom request headers and
 * `Retry-After` parsing. No table, no queue.
 */
@Module({
  providers: [WebhookSender],
  exports: [WebhookSender],
})
export class DeliverySendingModule {}
