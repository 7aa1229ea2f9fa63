/**
 * The transformations feature's face (docs/architecture.md#folders): what other features import
 * from `src/transformations/`, the sandbox that runs per-endpoint transformations
 * (docs/webhooks.md#transformations, docs/security.md#transformation-sandbox).
 */
export {
  TRANSFORMATION_CPU_BUDGET_MS,
  TRANSFORMATION_MAX_CODE_BYTES,
  TRANSFORMATION_MAX_OUTPUT_BYTES,
  TRANSFORMATION_MEMORY_LIMIT_BYTES,
  type TransformationFailureKind,
  type TransformationMethod,
} from './transformation.constants';
export { TransformationBusyError } from './transformation-errors';
export type {
  TransformationCode,
  TransformationFailure,
  TransformationInput,
  TransformationOutcome,
} from './transformation-outcome';
export {
  TRANSFORMATION_SANDBOX_OPTIONS,
  TransformationSandbox,
  type TransformationSandboxOptions,
} from './transformation-sandbox.service';
export { TransformationsModule } from './transformations.module';
