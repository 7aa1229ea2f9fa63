/**
 * The webhooks feature's face (docs/architecture.md#folders): what other features may import
 * from `src/webhooks/`.
 */
export * from './signing-keys';
export * from './account-notifications.service';
export * from './custom-headers';
export * from './custom-headers.constants';
export * from './delivery-targets.service';
export * from './endpoint-transformations.service';
export * from './transformation-version.entity';
export * from './endpoint-limits.constants';
export * from './event-examples.constants';
export * from './event-schemas.constants';
export * from './event-types.constants';
export * from './recovery-probes';
export * from './payload-filter';
export * from './payload-filter.constants';
export * from './signature-schemes.constants';
export * from './transformed-request';
export * from './webhook-endpoint-admin.service';
export * from './webhook-endpoint-reads.service';
export * from './webhook-endpoint.entity';
export * from './webhook-endpoint.views';
export * from './webhook-endpoints.module';
