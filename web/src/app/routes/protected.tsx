import { RequireSession } from '../../lib/auth';
import { AppLayout } from '../layout/app-layout';

/** Every signed-in page: the guard, then the shell around the page. */
export function ProtectedRoute() {
  return (
    <RequireSession>
      <AppLayout />
    </RequireSession>
  );
}
