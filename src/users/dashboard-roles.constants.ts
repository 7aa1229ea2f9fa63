/** The roles of a dashboard user (docs/dashboard.md#users-and-roles). */
export const DASHBOARD_ROLES = ['admin', 'viewer'] as const;

/** `admin` may do everything; `viewer` may only read (docs/dashboard.md#users-and-roles). */
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

/** Whether `value` is one of {@link DASHBOARD_ROLES}. */
export function isDashboardRole(value: unknown): value is DashboardRole {
  return typeof value === 'string' && (DASHBOARD_ROLES as readonly string[]).includes(value);
}
