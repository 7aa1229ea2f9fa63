/**
 * The portal feature's face (docs/architecture.md#folders): what other features import from
 * `src/portal/`.
 */
export * from './portal-link.entity';
export * from './portal-links.service';
export * from './portal-request';
export * from './portal.module';
export { isPortalSessionTokenShaped } from './portal-tokens';
