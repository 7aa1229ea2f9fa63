import type { MigrationInterface } from 'typeorm';
import { InitialSchema1795386531968 } from './1795386531968-InitialSchema';
import { WebhookDelivery1795387645779 } from './1795387645779-WebhookDelivery';
import { IdempotencyKey1795389540035 } from './1795389540035-IdempotencyKey';
import { ReliabilityRound21795400000000 } from './1795400000000-ReliabilityRound2';
import { Dashboard1795500000000 } from './1795500000000-Dashboard';
import { DeliveryLog1795500000001 } from './1795500000001-DeliveryLog';
import { DeliveryBatches1795600000000 } from './1795600000000-DeliveryBatches';
import { LeadImportKey1795700000000 } from './1795700000000-LeadImportKey';
import { DeliveryRollups1795820000000 } from './1795820000000-DeliveryRollups';
import { DeliveryLedger1795840000000 } from './1795840000000-DeliveryLedger';
import { EndpointDisabledReason1795850000000 } from './1795850000000-EndpointDisabledReason';
import { EndpointFailing1795860000000 } from './1795860000000-EndpointFailing';
import { AccountNotification1795870000000 } from './1795870000000-AccountNotification';
import { DeliveryRecovery1795880000000 } from './1795880000000-DeliveryRecovery';
import { DeliveryRetention1795900000000 } from './1795900000000-DeliveryRetention';
import { ImportRejections1795920000000 } from './1795920000000-ImportRejections';
import { MissedDeliveryReplay1795925000000 } from './1795925000000-MissedDeliveryReplay';
import { LeadSearch1795927000000 } from './1795927000000-LeadSearch';
import { AuditLogFilters1795945000000 } from './1795945000000-AuditLogFilters';
import { SpreadsheetImport1795930000000 } from './1795930000000-SpreadsheetImport';
import { RollupHistogramArrays1795935000000 } from './1795935000000-RollupHistogramArrays';
import { RollupChartLine1795936000000 } from './1795936000000-RollupChartLine';
import { SpreadsheetSuggestedMapping1795940000000 } from './1795940000000-SpreadsheetSuggestedMapping';
import { RecoveryOfRetryingDeliveries1795946100000 } from './1795946100000-RecoveryOfRetryingDeliveries';
import { AttemptResponseHeaders1795947000000 } from './1795947000000-AttemptResponseHeaders';
import { EventTraceContext1795948000000 } from './1795948000000-EventTraceContext';
import { EndpointCustomHeaders1795949000000 } from './1795949000000-EndpointCustomHeaders';
import { EndpointSignatureScheme1795950000000 } from './1795950000000-EndpointSignatureScheme';
import { EndpointThrottle1795951000000 } from './1795951000000-EndpointThrottle';
import { RecoveryFixedDeliveries1795952500000 } from './1795952500000-RecoveryFixedDeliveries';
import { UnstartedUploadIndex1795953000000 } from './1795953000000-UnstartedUploadIndex';
import { PerLeadOrdering1795954000000 } from './1795954000000-PerLeadOrdering';
import { EndpointAutoRecovery1795956000000 } from './1795956000000-EndpointAutoRecovery';
import { EndpointTransformations1795957000000 } from './1795957000000-EndpointTransformations';
import { PortalSessions1795958000000 } from './1795958000000-PortalSessions';
import { ErasureAndSuppression1795959000000 } from './1795959000000-ErasureAndSuppression';
import { SuppressionFingerprints1795960000000 } from './1795960000000-SuppressionFingerprints';
import { EndpointPayloadFilter1795955000000 } from './1795955000000-EndpointPayloadFilter';

/**
 * Migrations in the order they run. Generate a new one from the entities with
 * `npm run migration:generate -- src/database/migrations/<Name>` and add its class here.
 */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
  InitialSchema1795386531968,
  WebhookDelivery1795387645779,
  IdempotencyKey1795389540035,
  ReliabilityRound21795400000000,
  Dashboard1795500000000,
  DeliveryLog1795500000001,
  DeliveryBatches1795600000000,
  LeadImportKey1795700000000,
  DeliveryRollups1795820000000,
  DeliveryLedger1795840000000,
  EndpointDisabledReason1795850000000,
  EndpointFailing1795860000000,
  AccountNotification1795870000000,
  DeliveryRecovery1795880000000,
  DeliveryRetention1795900000000,
  ImportRejections1795920000000,
  MissedDeliveryReplay1795925000000,
  LeadSearch1795927000000,
  SpreadsheetImport1795930000000,
  RollupHistogramArrays1795935000000,
  RollupChartLine1795936000000,
  SpreadsheetSuggestedMapping1795940000000,
  AuditLogFilters1795945000000,
  RecoveryOfRetryingDeliveries1795946100000,
  AttemptResponseHeaders1795947000000,
  EventTraceContext1795948000000,
  EndpointCustomHeaders1795949000000,
  EndpointSignatureScheme1795950000000,
  EndpointThrottle1795951000000,
  RecoveryFixedDeliveries1795952500000,
  UnstartedUploadIndex1795953000000,
  PerLeadOrdering1795954000000,
  EndpointAutoRecovery1795956000000,
  EndpointPayloadFilter1795955000000,
  EndpointTransformations1795957000000,
  PortalSessions1795958000000,
  ErasureAndSuppression1795959000000,
  SuppressionFingerprints1795960000000,
];
