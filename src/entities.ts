import { TypeOrmModule } from '@nestjs/typeorm';
// Each entity from its own file, not its feature's face: loading an entity must not load the
// feature's modules and services (the CLI and the worker register every entity).
import { Account } from './campaigns/account.entity';
import { Campaign } from './campaigns/campaign.entity';
import { ApiKey } from './auth/api-key.entity';
import { Lead } from './leads/lead.entity';
import { LeadImport } from './leads/lead-import.entity';
import { LeadImportRejection } from './leads/lead-import-rejection.entity';
import { SpreadsheetImport, SpreadsheetImportFilePart } from './leads/spreadsheet-import.entity';
import { WebhookEndpoint } from './webhooks/webhook-endpoint.entity';
import { TransformationVersion } from './webhooks/transformation-version.entity';
import { AccountNotification } from './webhooks/account-notification.entity';
import { WebhookEvent } from './delivery/deliveries/webhook-event.entity';
import { WebhookDelivery } from './delivery/deliveries/webhook-delivery.entity';
import { EndpointFilteredDay } from './delivery/deliveries/endpoint-filtered-day.entity';
import { WebhookDeliveryAttempt } from './delivery/attempts/webhook-delivery-attempt.entity';
import { EndpointDeliveryRollup } from './delivery/analytics/endpoint-delivery-rollup.entity';
import { IdempotencyKey } from './idempotency/idempotency-key.entity';
import { Deployment } from './database/deployment.entity';
import { DashboardUser } from './users/dashboard-user.entity';
import { DashboardSession } from './users/dashboard-session.entity';
import { AuditLogEntry } from './audit/audit-log-entry.entity';
import { PortalLink } from './portal/portal-link.entity';
import {
  DeliveryRecovery,
  DeliveryRecoveryDelivery,
} from './delivery/recovery/delivery-recovery.entity';
import {
  SuppressionEntry,
  SuppressionListVersion,
} from './leads/suppression/suppression-entry.entity';
import { ErasureReceipt } from './privacy/erasure-receipt.entity';

/**
 * Every entity of the service, for the TypeORM CLI (`src/data-source.ts`) and the schema test:
 * the schema they describe must equal the migrations' result. At run time each module
 * registers the entities of the tables it owns, for its repositories; each process root also
 * registers them all through {@link ENTITY_METADATA} (docs/architecture.md#modules-and-tables).
 */
export const ENTITIES = [
  Account,
  Campaign,
  ApiKey,
  LeadImport,
  SpreadsheetImport,
  SpreadsheetImportFilePart,
  LeadImportRejection,
  Lead,
  WebhookEndpoint,
  TransformationVersion,
  AccountNotification,
  WebhookEvent,
  WebhookDelivery,
  EndpointFilteredDay,
  WebhookDeliveryAttempt,
  EndpointDeliveryRollup,
  IdempotencyKey,
  Deployment,
  DashboardUser,
  DashboardSession,
  AuditLogEntry,
  PortalLink,
  DeliveryRecovery,
  DeliveryRecoveryDelivery,
  SuppressionEntry,
  SuppressionListVersion,
  ErasureReceipt,
];

/**
 * Every entity's metadata, registered by each process root (`AppModule`, `WorkerModule`,
 * `CliModule`): an entity's relations name entities of other features (an import's uploader,
 * an event's campaign), and TypeORM needs their metadata in every process that maps it,
 * whichever feature modules the process loads. Mapping is not access: a module reads and writes
 * only the tables it owns (docs/architecture.md#modules-and-tables).
 */
export const ENTITY_METADATA = TypeOrmModule.forFeature(ENTITIES);
