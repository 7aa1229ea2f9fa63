import { Logger } from '@nestjs/common';
import type { DeploymentIdentity } from '../database/deployment-identity';
import { createRedisClient, type RedisTarget } from '../redis/redis-connection';

/** Thrown at start when another deployment already owns this process's Redis namespace. */
export class QueueNamespaceConflictError extends Error {
  constructor(prefix: string, owner: string) {
    super(
      `QUEUE_PREFIX "${prefix}" is already used on this Redis by another deployment (database ` +
        `deployment id ${owner}); leave QUEUE_PREFIX unset or give each deployment its own. ` +
        `If that deployment is gone for good, delete the Redis key "${prefix}:deployment".`,
    );
    this.name = 'QueueNamespaceConflictError';
  }
}

/**
 * Claims the deployment's Redis namespace (`<prefix>:deployment` = deployment id, set once),
 * so that two deployments forced onto one `QUEUE_PREFIX` cannot take each other's jobs: the
 * second one stops at start (docs/reliability.md "Queue namespaces"). When Redis cannot be
 * reached the claim is skipped with a warning (uploads work without Redis); the worker's
 * per-job check still refuses foreign jobs. The key keeps the namespace's plain name (no hash
 * tag): it is a single key, read and written alone.
 *
 * @throws QueueNamespaceConflictError when the namespace belongs to another deployment.
 */
export async function claimQueueNamespace(
  target: RedisTarget,
  deployment: DeploymentIdentity,
  logger = new Logger('QueueNamespace'),
): Promise<void> {
  const redis = createRedisClient(target, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  const key = `${deployment.queuePrefix}:deployment`;
  let owner: string | null;
  try {
    await redis.connect();
    await redis.set(key, deployment.id, 'NX');
    owner = await redis.get(key);
  } catch (error) {
    logger.warn(
      `Could not claim the Redis namespace "${deployment.queuePrefix}" (${(error as Error).message}); continuing`,
    );
    return;
  } finally {
    redis.disconnect();
  }
  if (owner !== null && owner !== deployment.id) {
    throw new QueueNamespaceConflictError(deployment.queuePrefix, owner);
  }
}
