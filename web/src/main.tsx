import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { PortalApp, PORTAL_PATH, takeLinkFromLocation } from './app/portal/portal-app';
import { AppProvider } from './app/provider';
import { createAppRouter } from './app/router';
import { createQueryClient } from './lib/query-client';

const queryClient = createQueryClient();
const root = createRoot(document.getElementById('root')!);

// The same app serves the embedded portal at /portal/<link id> (docs/dashboard.md#embedding-the-portal).
if (PORTAL_PATH.test(window.location.pathname)) {
  // The secret leaves the address bar before anything renders.
  const link = takeLinkFromLocation();
  root.render(
    <StrictMode>
      <PortalApp queryClient={queryClient} link={link} />
    </StrictMode>,
  );
} else {
  root.render(
    <StrictMode>
      <AppProvider queryClient={queryClient}>
        <RouterProvider router={createAppRouter()} />
      </AppProvider>
    </StrictMode>,
  );
}
