import { Account } from './campaigns/account.entity';
import { Campaign } from './campaigns/campaign.entity';
import { ApiKey } from './auth/api-key.entity';
import { Lead } from './leads/upload';
import { LeadImport, LeadImportRejection } from './leads/history';
import { SpreadsheetImport, SpreadsheetImportFilePart } from './leads/spreadsheet';
import { WebhookEndpoint } from './webhooks/webhook-endpoint.entity';
import { AccountNotification } from './webhooks/account-notification.entity';
import { WebhookEvent } from './delivery/deliveries';
import { WebhookDelivery } from './delivery/deliveries';
import { WebhookDeliveryAttempt } from './delivery/attempts';
import { EndpointDeliveryRollup } from './delivery/analytics';
import { IdempotencyKey } from './idempotency/idempotency-key.entity';
import { Deployment } from './database/deployment.entity';
import { DashboardUser } from './users/dashboard-user.entity';
import { DashboardSession } from './users/dashboard-session.entity';
import { AuditLogEntry } from './audit/audit-log-entry.entity';
import { DeliveryRecovery } from './delivery/recovery';

/**
 * Every entity of the service, for the TypeORM CLI (`src/data-source.ts`) and the schema test:
 * the schema they describe must equal the migrations' result. At run time each module
 * registers its own (docs/architecture.md#modules-and-tables).
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
  AccountNotification,
  WebhookEvent,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  EndpointDeliveryRollup,
  IdempotencyKey,
  Deployment,
  DashboardUser,
  DashboardSession,
  AuditLogEntry,
  DeliveryRecovery,
];
