/** The face of `src/delivery/analytics/`: rollups, stats and the ledger's shapes. */
export { DeliveryAnalyticsModule } from './delivery-analytics.module';
export {
  DeliveryStatsService,
  STATS_WINDOWS,
  type DeliveryFigures,
  type DeliveryStats,
  type DeliveryStatsPoint,
  type StatsWindow,
} from './delivery-stats.service';
export { EndpointDeliveryRollup } from './endpoint-delivery-rollup.entity';
export type { FailureSignals } from './delivery-rollup.repository';
export { rollUp, type RolledAttempt, type RollupPeriod } from './delivery-rollup';
export {
  isLedgerDays,
  type DeliveryLedger,
  type LedgerDay,
  type LedgerThrottle,
} from './delivery-ledger';
export { LEDGER_DEFAULT_DAYS, LEDGER_MAX_DAYS, parseLedgerDays } from './delivery-ledger.constants';
