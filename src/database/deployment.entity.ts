import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A random id written once by the migration that creates the table: with the cluster's system
 * identifier and the database's OID it makes the deployment identity that names the
 * deployment's Redis namespace (docs/reliability.md "Queue namespaces").
 */
@Entity({ name: 'deployment' })
export class Deployment {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
