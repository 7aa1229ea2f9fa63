// TEMPORARY STUB (not committed): replaced by the sandbox branch.
import { Injectable, Module } from '@nestjs/common';
export type TransformationMethod = 'POST' | 'PUT' | 'PATCH';
export interface TransformationInput {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  payloadJson: string;
  eventType: string;
}
export interface TransformationCode {
  key: string;
  code: string;
}
export interface TransformationFailure {
  kind: string;
  message: string;
  line: number | null;
  column: number | null;
}
export type TransformationOutcome =
  | {
      kind: 'request';
      method: TransformationMethod;
      url: string;
      headers: Record<string, string>;
      body: string;
      contentType: string;
    }
  | { kind: 'cancelled' }
  | { kind: 'error'; error: TransformationFailure };
export class TransformationBusyError extends Error {
  constructor(readonly waitMs: number) {
    super('busy');
  }
}
export const TRANSFORMATION_MAX_CODE_BYTES = 64 * 1024;
@Injectable()
export class TransformationSandbox {
  check(_code: string, _samples: TransformationInput[]): Promise<TransformationFailure | null> {
    return Promise.resolve(null);
  }
  run(_code: TransformationCode, _input: TransformationInput): Promise<TransformationOutcome> {
    throw new Error('stub');
  }
}
@Module({ providers: [TransformationSandbox], exports: [TransformationSandbox] })
export class TransformationsModule {}
