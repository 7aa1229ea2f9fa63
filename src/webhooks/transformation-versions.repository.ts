import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { TransformationVersion } from './transformation-version.entity';

/**
 * The SQL of endpoints' transformations (docs/webhooks.md#transformations):
 * `webhook_transformation_version` and the endpoint's copy of the version in force.
 */
@Injectable()
export class TransformationVersionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The endpoint's latest `limit` versions, newest first. */
  latest(endpointId: number, limit: number): Promise<TransformationVersion[]> {
    return this.dataSource.getRepository(TransformationVersion).find({
      where: { endpointId },
      order: { version: 'DESC' },
      take: limit,
    });
  }

  /** One version, or null. */
  find(endpointId: number, version: number): Promise<TransformationVersion | null> {
    return this.dataSource.getRepository(TransformationVersion).findOneBy({ endpointId, version });
  }

  /**
   * Locks the endpoint's row until the caller's commit (so concurrent saves take the next
   * version in turn).
   * @returns its version in force (null: none), or undefined when it does not exist.
   */
  async lockEndpoint(
    manager: EntityManager,
    endpointId: number,
  ): Promise<number | null | undefined> {
    const rows: Array<{ transformation_version: number | null }> = await manager.query(
      `SELECT transformation_version FROM webhook_endpoint WHERE id = $1 FOR UPDATE`,
      [endpointId],
    );
    return rows.length === 0 ? undefined : rows[0].transformation_version;
  }

  /**
   * Adds the endpoint's next version and puts it in force, in the caller's transaction (which
   * holds the endpoint's lock: {@link lockEndpoint}).
   * @returns the new version's number.
   */
  async addVersion(
    manager: EntityManager,
    endpointId: number,
    code: string,
    createdBy: string | null,
    restoredFrom: number | null,
  ): Promise<number> {
    const [{ version }]: Array<{ version: number }> = await manager.query(
      `INSERT INTO webhook_transformation_version (endpoint_id, version, code, created_by, restored_from)
       SELECT $1, coalesce(max(version), 0) + 1, $2, $3, $4
         FROM webhook_transformation_version WHERE endpoint_id = $1
       RETURNING version`,
      [endpointId, code, createdBy, restoredFrom],
    );
    await manager.query(
      `UPDATE webhook_endpoint SET transformation = $2, transformation_version = $3,
              updated_at = now() WHERE id = $1`,
      [endpointId, code, version],
    );
    return version;
  }

  /** Takes the endpoint's transformation out of force, in the caller's transaction. */
  async clear(manager: EntityManager, endpointId: number): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoint SET transformation = NULL, transformation_version = NULL,
              updated_at = now() WHERE id = $1`,
      [endpointId],
    );
  }
}
