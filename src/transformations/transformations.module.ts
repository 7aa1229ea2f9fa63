import { Module } from '@nestjs/common';
import { TransformationSandbox } from './transformation-sandbox.service';

/**
 * Per-endpoint transformations' sandbox (docs/webhooks.md#transformations,
 * docs/security.md#transformation-sandbox): provides and exports {@link TransformationSandbox},
 * its worker threads started with the module and stopped with it. It owns no table and imports
 * no other feature, so both the webhooks (the check on save) and the delivery (the run before
 * sending) import it without a cycle.
 */
@Module({
  providers: [TransformationSandbox],
  exports: [TransformationSandbox],
})
export class TransformationsModule {}
