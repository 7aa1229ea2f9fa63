import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';

/**
 * Who this process works for: the deployment id stored in its database, and the Redis
 * namespace (BullMQ keys, rate-limit counters) derived from it. Two deployments that share a
 * Redis therefore never share a namespace unless `QUEUE_PREFIX` forces one, and then the
 * second refuses to start (docs/reliability.md "Queue namespaces").
 */
export class DeploymentIdentity {
  constructor(
    /** 32 hex digits identifying this database (see {@link readDeploymentIdentity}). */
    readonly id: string,
    /** Prefix of every Redis key of this deployment. */
    readonly queuePrefix: string,
  ) {}
}

/** The namespace of a deployment that sets no `QUEUE_PREFIX`: `campaign-api-<12 hex of its id>`. */
export function defaultQueuePrefix(deploymentId: string): string {
  return `campaign-api-${deploymentId.slice(0, 12)}`;
}

/**
 * Reads who this database is and settles the namespace. The identity combines the id the
 * migrations stored in the `deployment` table with the PostgreSQL cluster's system identifier
 * and the database's OID, so a copy of the database (a restored backup, a template copy) is
 * another deployment, while every process on the same database agrees.
 *
 * @param explicitPrefix `QUEUE_PREFIX` when set, else null (derived from the identity).
 * @throws Error when the database has no deployment row (migrations not applied).
 */
export async function readDeploymentIdentity(
  dataSource: DataSource,
  explicitPrefix: string | null,
): Promise<DeploymentIdentity> {
  const rows: Array<{ id: string; database_oid: string }> = await dataSource.query(
    `SELECT d.id, (SELECT oid FROM pg_database WHERE datname = current_database())::text AS database_oid
       FROM deployment d ORDER BY d.created_at, d.id LIMIT 1`,
  );
  if (rows.length === 0) throw new Error('the database has no deployment row: run the migrations');
  let cluster = '';
  try {
    const [control] = (await dataSource.query(
      'SELECT system_identifier::text AS id FROM pg_control_system()',
    )) as Array<{ id: string }>;
    cluster = control.id;
  } catch {
    // Not readable for this role: the stored id and the OID still tell deployments apart.
  }
  const id = createHash('sha256')
    .update(`${rows[0].id}/${cluster}/${rows[0].database_oid}`)
    .digest('hex')
    .slice(0, 32);
  return new DeploymentIdentity(id, explicitPrefix ?? defaultQueuePrefix(id));
}
