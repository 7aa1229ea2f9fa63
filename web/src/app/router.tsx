import { createBrowserRouter, type RouteObject } from 'react-router';
import { RootErrorBoundary, RootHydrateFallback, RootRoute } from './routes/root';
import { SignInRoute } from './routes/sign-in';

/**
 * The dashboard's pages. The sign-in page is in the first bundle (it is where everyone
 * lands); the signed-in shell and every page behind it load as separate chunks.
 */
export const routes: RouteObject[] = [
  {
    path: '/',
    Component: RootRoute,
    ErrorBoundary: RootErrorBoundary,
    HydrateFallback: RootHydrateFallback,
    children: [
      { index: true, Component: SignInRoute },
      {
        lazy: async () => ({ Component: (await import('./routes/protected')).ProtectedRoute }),
        children: [
          {
            path: 'campaigns',
            lazy: async () => ({ Component: (await import('./routes/campaigns')).CampaignsRoute }),
          },
          {
            path: 'campaigns/:campaignId',
            lazy: async () => ({ Component: (await import('./routes/campaign')).CampaignRoute }),
          },
          {
            path: 'campaigns/:campaignId/endpoints/new',
            lazy: async () => ({
              Component: (await import('./routes/new-endpoint')).NewEndpointRoute,
            }),
          },
          {
            path: 'endpoints/:endpointId',
            lazy: async () => ({ Component: (await import('./routes/endpoint')).EndpointRoute }),
          },
          {
            path: 'endpoints/:endpointId/charts',
            lazy: async () => ({
              Component: (await import('./routes/charts')).EndpointChartsRoute,
            }),
          },
          {
            path: 'endpoints/:endpointId/transformation',
            lazy: async () => ({
              Component: (await import('./routes/transformation')).TransformationRoute,
            }),
          },
          {
            path: 'campaigns/:campaignId/charts',
            lazy: async () => ({
              Component: (await import('./routes/charts')).CampaignChartsRoute,
            }),
          },
          {
            path: 'endpoints/:endpointId/edit',
            lazy: async () => ({
              Component: (await import('./routes/edit-endpoint')).EditEndpointRoute,
            }),
          },
          {
            path: 'campaigns/:campaignId/import',
            lazy: async () => ({
              Component: (await import('./routes/spreadsheet-import')).SpreadsheetUploadRoute,
            }),
          },
          {
            path: 'spreadsheet-imports/:importId',
            lazy: async () => ({
              Component: (await import('./routes/spreadsheet-import')).SpreadsheetImportRoute,
            }),
          },
          {
            path: 'imports/:importId',
            lazy: async () => ({ Component: (await import('./routes/import')).ImportRoute }),
          },
          {
            path: 'leads/:leadId',
            lazy: async () => ({ Component: (await import('./routes/lead')).LeadRoute }),
          },
          {
            path: 'api-keys',
            lazy: async () => ({ Component: (await import('./routes/api-keys')).ApiKeysRoute }),
          },
          {
            path: 'privacy',
            lazy: async () => ({ Component: (await import('./routes/privacy')).PrivacyRoute }),
          },
          {
            path: 'settings/notifications',
            lazy: async () => ({
              Component: (await import('./routes/notifications')).NotificationsRoute,
            }),
          },
          {
            path: 'settings/portal',
            lazy: async () => ({
              Component: (await import('./routes/portal-settings')).PortalSettingsRoute,
            }),
          },
          {
            path: 'audit-log',
            lazy: async () => ({ Component: (await import('./routes/audit-log')).AuditLogRoute }),
          },
          {
            path: '*',
            lazy: async () => ({ Component: (await import('./routes/not-found')).NotFoundRoute }),
          },
        ],
      },
    ],
  },
];

/**
 * The router, under the base the service serves the app at: `/dashboard/`, trailing slash
 * included, so the sign-in page's URL is `/dashboard/` rather than `/dashboard`.
 */
export function createAppRouter() {
  return createBrowserRouter(routes, { basename: import.meta.env.BASE_URL });
}
