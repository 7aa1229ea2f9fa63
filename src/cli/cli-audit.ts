import type { AuditLog, AuditEntryInput } from '../audit/audit-log.service';
import { CLI_ACTOR } from '../audit/audit-log.service';

/**
 * Records a change the CLI has just made in the audit log (docs/dashboard.md#audit-log), with
 * the actor `cli` and no IP. Called after the change succeeded and before its result is
 * printed (docs/cli.md#running-the-cli).
 * @throws Error saying the change was made but not recorded, when the entry cannot be written.
 */
export async function recordCliChange(
  audit: AuditLog,
  entry: Omit<AuditEntryInput, 'actor' | 'ip'>,
): Promise<void> {
  try {
    await audit.record({ ...entry, actor: CLI_ACTOR, ip: null });
  } catch (error) {
    throw new Error(
      `${entry.action} was done but could not be recorded in the audit log: ${(error as Error).message}`,
    );
  }
}
