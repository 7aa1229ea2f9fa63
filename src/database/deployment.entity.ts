import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The identity of one deployment: a single row written by the migration that creates the
 * table, so every process on the same database reads the same id, and a deployment on another
 * database gets another one. It names the deployment's Redis namespace (docs/reliability.md
 * "Queue namespaces").
 */
@Entity({ name: 'deployment' })
export class Deployment {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
