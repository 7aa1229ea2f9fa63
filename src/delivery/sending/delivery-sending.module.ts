import { Module } from '@nestjs/common';
import { TransformationsModule } from '../../transformations';
import { RequestShaper } from './request-shaper';
import { WebhookSender } from './webhook.sender';

/**
 * Sending a signed webhook request (docs/webhooks.md#signing): {@link WebhookSender} with the
 * message signer, the address policy, the outbound proxy tunnel, custom request headers and
 * `Retry-After` parsing, and the endpoints' transformations that shape a request before it is
 * signed ({@link RequestShaper} behind `WebhookSender.shape`, docs/webhooks.md#transformations). No table, no queue.
 */
@Module({
  imports: [TransformationsModule],
  providers: [WebhookSender, RequestShaper],
  exports: [WebhookSender],
})
export class DeliverySendingModule {}
