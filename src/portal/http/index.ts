/**
 * The portal's HTTP edge (docs/architecture.md#folders): the public API's mint and revoke
 * routes, and the dashboard's portal routes.
 */
export * from './portal-http.module';
