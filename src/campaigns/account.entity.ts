import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A customer of the platform: owns campaigns and API keys. Created with `account create`. */
@Entity({ name: 'account' })
export class Account {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /**
   * The origins allowed to frame the account's portal, `https://host[:port]`
   * (docs/dashboard.md#embedding-the-portal); empty: the portal is never framed.
   */
  @Column({ name: 'portal_origins', type: 'text', array: true, default: () => "'{}'" })
  portalOrigins!: string[];
}
