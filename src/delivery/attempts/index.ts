/** The face of `src/delivery/attempts/`: the attempts' module, its service and vocabulary. */
export { DeliveryAttemptsModule } from './delivery-attempts.module';
export {
  DeliveryService,
  MAX_CLI_LIST_LIMIT,
  type AttemptDetail,
  type SentRequest,
} from './delivery.service';
export { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
export type { BegunAttempt } from './attempt-log.service';
export {
  UNKNOWN_OUTCOME,
  type AttemptRecord,
  type AttemptStart,
  type DeliveryState,
  type FinishedAttempt,
  type LogPosition,
} from './attempt-records';
export {
  decodeLogCursor,
  encodeLogCursor,
  parseDeliveryLogQuery,
  parseInstant,
  type DeliveryLogItem,
  type DeliveryLogPage,
  type DeliveryLogQuery,
} from './delivery-log';
export { DEFAULT_LOG_LIMIT, LOG_OUTCOMES, MAX_LOG_LIMIT } from './delivery-log.constants';
export { PING, testMessage, type TestMessage } from './test-messages.constants';
export { GONE, nextStep, type AttemptAnswer, type NextStep } from './retry-schedule';
export { DAY_MS, partitionName, utcDay } from './attempt-partitions';
export { microsecondsOf, timestampFromMicroseconds } from './delivery-log.repository';
export { type TrialOutcome, type TrialSource } from './transformation-trials.service';
