import type { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AccountNotifications } from '../../webhooks';
import type { WebhookSender } from '../sending';

/**
 * An operational message to an account's notification URL (docs/webhooks.md#operational-messages):
 * `endpoint.failing`, `endpoint.disabled` (the failing-endpoint monitor) or `endpoint.recovered`
 * (an endpoint that came back by itself, docs/webhooks.md#endpoints-that-come-back-by-themselves).
 */
export interface OperationalMessage {
  type: 'endpoint.failing' | 'endpoint.disabled' | 'endpoint.recovered';
  data: Record<string, unknown>;
}

/**
 * Sends an operational message to the account's notification URL, if it has one: a Standard
 * Webhooks POST `{type, timestamp, data}` signed with the account's secret, `webhook-id`
 * `msg_<uuid>`. Sent once, never retried; the outcome is logged on `logger`. Never throws.
 */
export async function sendOperationalMessage(
  via: { notifications: AccountNotifications; sender: WebhookSender; logger: Logger },
  accountId: number,
  message: OperationalMessage,
): Promise<void> {
  const { notifications, sender, logger } = via;
  try {
    const target = await notifications.target(accountId);
    if (!target) return;
    const body = JSON.stringify({
      type: message.type,
      timestamp: new Date().toISOString(),
      data: message.data,
    });
    const result = await sender.send(target.url, [target.secret], {
      id: `msg_${randomUUID()}`,
      body,
    });
    if (result.success) {
      logger.log(`Sent ${message.type} to account ${accountId}'s notification URL`);
    } else {
      logger.warn(
        `Could not send ${message.type} to account ${accountId}'s notification URL: ${result.error}`,
      );
    }
  } catch (error) {
    logger.warn(`Could not send ${message.type}: ${(error as Error).message}`);
  }
}
