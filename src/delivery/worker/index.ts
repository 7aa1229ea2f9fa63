/** The face of `src/delivery/worker/`: the worker's root feature module. */
export { DeliveryWorkerModule } from './delivery-worker.module';
// The process's shutdown stops them (`shutdownSequence`).
export { DeliveryProcessor } from './delivery.processor';
export { DeliverySweeper } from './delivery.sweeper';
export { FailingEndpointMonitor } from './failing-endpoints.monitor';
export { RecoveryProbeRunner, PROBES_PER_PASS, type ProbeOutcome } from './recovery-probes.runner';
export { DeliveryRecoveryRunner, RECOVERY_BATCH_SIZE } from './delivery-recovery.runner';
