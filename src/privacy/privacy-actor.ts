import type { EntityManager } from 'typeorm';
import { AuditLog, type ApiKeyActor, type AuditActor, type AuditAction } from '../audit';

/**
 * Who asks for an erasure or a change to the suppression list: a dashboard user or the CLI,
 * or an API key through the public API, with its id for the receipt (each audited as itself,
 * the key by its prefix and with its id in the details: docs/privacy.md#who-may-erase).
 */
export type PrivacyActor = Exclude<AuditActor, ApiKeyActor> | (ApiKeyActor & { apiKeyId: number });

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
  await audit.recordChange(
    actor,
    {
      accountId,
      action,
      objectType: 'account',
      objectId: accountId,
      details: actor.type === 'api_key' ? { ...details, api_key_id: actor.apiKeyId } : details,
    },
    manager,
  );
}
