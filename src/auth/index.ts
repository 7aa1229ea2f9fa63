/**
 * The auth feature's face (docs/architecture.md#folders): what other features import from
 * `src/auth/`.
 */
export * from './api-key.entity';
export * from './api-keys.module';
export * from './api-keys.service';
export * from './auth-principal';
export * from './auth.module';
export * from './bearer-authentication.hook';
export * from './campaign-access.guard';
export * from './public.decorator';
