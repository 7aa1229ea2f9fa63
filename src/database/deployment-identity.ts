import { DataSource } from 'typeorm';

/**
 * Who this process works for: the deployment id stored in its database, and the Redis
 * namespace (BullMQ keys, rate-limit counters) derived from it. Two deployments that share a
 * Redis therefore never share a namespace unless `QUEUE_PREFIX` forces one, and then the
 * second refuses to start (docs/reliability.md "Queue namespaces").
 */
export class DeploymentIdentity {
  constructor(
    /** The `deployment.id` UUID of this database. */
    readonly id: string,
    /** Prefix of every Redis key of this deployment. */
    readonly queuePrefix: string,
  ) {}
}

/** The namespace of a deployment that sets no `QUEUE_PREFIX`: `campaign-api-<12 hex of its id>`. */
export function defaultQueuePrefix(deploymentId: string): string {
  return `campaign-api-${deploymentId.replace(/-/g, '').slice(0, 12)}`;
}

/**
 * Reads the deployment id (written once by the migrations) and settles the namespace.
 * @param explicitPrefix `QUEUE_PREFIX` when set, else null (derived from the id).
 * @throws Error when the database has no deployment row (migrations not applied).
 */
export async function readDeploymentIdentity(
  dataSource: DataSource,
  explicitPrefix: string | null,
): Promise<DeploymentIdentity> {
  const rows: Array<{ id: string }> = await dataSource.query(
    'SELECT id FROM deployment ORDER BY created_at, id LIMIT 1',
  );
  if (rows.length === 0) throw new Error('the database has no deployment row: run the migrations');
  const id = rows[0].id;
  return new DeploymentIdentity(id, explicitPrefix ?? defaultQueuePrefix(id));
}
