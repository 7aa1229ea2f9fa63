/**
 * The actions the audit log records (docs/dashboard.md#audit-log), `<object>.<verb>`. Sign-ins
 * come from the dashboard; the changes from the dashboard or the CLI, and `endpoint.disable`,
 * `endpoint.failing` and `endpoint.recovered` from the service itself
 * (docs/webhooks.md#disabled-endpoints, docs/webhooks.md#failing-endpoints).
 */
export const AUDIT_ACTIONS = [
  'session.sign_in',
  'session.sign_in_failed',
  'session.sign_out',
  'account.create',
  'account.notifications_update',
  'account.portal_origins_update',
  'campaign.create',
  'user.create',
  'user.disable',
  'user.reset_password',
  'api_key.create',
  'api_key.revoke',
  'endpoint.create',
  'endpoint.update',
  'endpoint.delete',
  'endpoint.disable',
  'endpoint.failing',
  'endpoint.recovered',
  'secret.rotate',
  'secret.reveal',
  'secret.change_scheme',
  'header.reveal',
  'transformation.save',
  'transformation.restore',
  'transformation.clear',
  'endpoint.test',
  'delivery.redeliver',
  'delivery.bulk_redeliver',
  'delivery.replay_missed',
  'delivery.bulk_redeliver_cancel',
  'import.start',
  'import.cancel',
  'import.discard',
  'erasure.create',
  'suppression.add',
  'suppression.remove',
  'suppression.import',
  'portal_link.create',
  'portal_link.revoke',
  'portal_link.exchange',
] as const;

/** One of {@link AUDIT_ACTIONS}. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an entry is about: `endpoint` 7, `api_key` 3, … */
export type AuditObjectType =
  'account' | 'campaign' | 'user' | 'session' | 'api_key' | 'endpoint' | 'delivery' | 'portal_link';
