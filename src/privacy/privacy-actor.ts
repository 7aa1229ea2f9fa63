import type { EntityManager } from 'typeorm';
import { AuditLog, SYSTEM_ACTOR, type AuditActor, type AuditAction } from '../audit';

/**
 * Who asks for an erasure or a change to the suppression list: a dashboard user or the CLI
 * (audited as such), or an API key through the public API (audited as the service, with the
 * key's id in the details: docs/privacy.md#who-may-erase).
 */
export type PrivacyActor = AuditActor | { type: 'api_key'; accountId: number; apiKeyId: number };

/** The receipt's `requested_by`: `user:<id>`, `cli` or `api_key:<id>`. */
export function requesterOf(actor: PrivacyActor): string {
  if (actor.type === 'user') return `user:${actor.userId}`;
  if (actor.type === 'api_key') return `api_key:${actor.apiKeyId}`;
  return 'cli';
}

/**
 * Records a privacy change in the audit log, in the change's transaction: never a phone, an
 * email or a hash in `details` (docs/privacy.md#what-is-stored-where).
 */
export async function auditPrivacyChange(
  audit: AuditLog,
  actor: PrivacyActor,
  accountId: number,
  action: AuditAction,
  details: Record<string, unknown>,
  manager: EntityManager,
): Promise<void> {
  if (actor.type === 'api_key') {
    await audit.record(
      {
        accountId,
        actor: SYSTEM_ACTOR,
        action,
        objectType: 'account',
        objectId: accountId,
        details: { ...details, api_key_id: actor.apiKeyId },
      },
      manager,
    );
    return;
  }
  await audit.recordChange(
    actor,
    { accountId, action, objectType: 'account', objectId: accountId, details },
    manager,
  );
}
