import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { AppProvider } from '../app/provider';
import { routes } from '../app/router';
import { createQueryClient } from '../lib/query-client';

/** Renders `routes` at `url` inside the app's providers (Mantine in test mode, a fresh query client). */
export function renderRoutes(routes: RouteObject[], url: string) {
  const queryClient = createQueryClient();
  const router = createMemoryRouter(routes, { initialEntries: [url] });
  const result = render(
    <AppProvider queryClient={queryClient} env="test">
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...result, router, queryClient };
}

/** Renders one element inside the app's providers. */
export function renderWithProviders(element: ReactNode) {
  return renderRoutes([{ path: '*', element }], '/');
}

/**
 * Renders the whole app (its routes, as the browser gets them) at `url`: for a test of a page
 * that the route composes from several features. Tests live beside their feature's components,
 * and features never import the app; this helper does it for them.
 */
export function renderApp(url: string) {
  return renderRoutes(routes, url);
}
