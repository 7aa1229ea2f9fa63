import type { DataSourceOptions } from 'typeorm';
import { Account } from '../campaigns/account.entity';
import { Campaign } from '../campaigns/campaign.entity';
import { ApiKey } from '../auth/api-key.entity';
import { Lead } from '../leads/lead.entity';
import { LeadImport } from '../leads/lead-import.entity';
import { WebhookEndpoint } from '../webhooks/webhook-endpoint.entity';
import { WebhookEvent } from '../delivery/webhook-event.entity';
import { WebhookDelivery } from '../delivery/webhook-delivery.entity';
import { WebhookDeliveryAttempt } from '../delivery/webhook-delivery-attempt.entity';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { Deployment } from './deployment.entity';
import { MIGRATIONS } from './migrations';

/** Every entity of the service; the schema they describe must equal the migrations' result. */
export const ENTITIES = [
  Account,
  Campaign,
  ApiKey,
  LeadImport,
  Lead,
  WebhookEndpoint,
  WebhookEvent,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  IdempotencyKey,
  Deployment,
];

/**
 * TypeORM options for PostgreSQL at `databaseUrl`. The schema comes only from committed
 * migrations (`synchronize` is off). The pool fails fast when PostgreSQL is unreachable, so a
 * request gets 503 quickly instead of hanging.
 *
 * @param databaseUrl `postgres://user@host:port/db`.
 * @param poolSize maximum connections this process opens.
 */
export function buildDataSourceOptions(databaseUrl: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
      application_name: 'campaign-api',
    },
  };
}
