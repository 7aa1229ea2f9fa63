import { useCurrentSession } from './auth';

/**
 * Whether the signed-in user may change things (docs/dashboard.md#users-and-roles): admins may;
 * viewers read only, so no change, reveal, test or redelivery control is rendered for them.
 */
export function useCanChange(): boolean {
  return useCurrentSession().user.role === 'admin';
}
