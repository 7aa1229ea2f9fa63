import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { ErasureCounts } from './erasure-receipt.entity';

/** A receipt to write ({@link ErasureRepository.insert}). */
export interface NewErasureReceipt {
  id: string;
  accountId: number;
  campaignId: number | null;
  phoneHash: Buffer | null;
  emailHash: Buffer | null;
  keyId: number;
  counts: ErasureCounts;
  suppressed: boolean;
  requestedBy: string;
}

/** A receipt as read back. */
export interface ErasureReceiptRow extends NewErasureReceipt {
  createdAt: Date;
}

interface Row {
  id: string;
  account_id: number;
  campaign_id: number | null;
  phone_hash: Buffer | null;
  email_hash: Buffer | null;
  key_id: number;
  counts: ErasureCounts;
  suppressed: boolean;
  requested_by: string;
  created_at: Date;
}

const COLUMNS =
  'id, account_id, campaign_id, phone_hash, email_hash, key_id, counts, suppressed, requested_by, created_at';

/** Every query of `erasure_receipt` (docs/privacy.md#erasure-receipts). */
@Injectable()
export class ErasureRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` in one READ COMMITTED transaction: the erasure commits whole or not at all. */
  inTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('READ COMMITTED', work);
  }

  /** Writes a receipt in the erasure's transaction. @returns its `created_at`. */
  async insert(manager: EntityManager, receipt: NewErasureReceipt): Promise<Date> {
    const rows: Array<{ created_at: Date }> = await manager.query(
      `INSERT INTO erasure_receipt (id, account_id, campaign_id, phone_hash, email_hash, key_id, counts, suppressed, requested_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING created_at`,
      [
        receipt.id,
        receipt.accountId,
        receipt.campaignId,
        receipt.phoneHash,
        receipt.emailHash,
        receipt.keyId,
        JSON.stringify(receipt.counts),
        receipt.suppressed,
        receipt.requestedBy,
      ],
    );
    return rows[0].created_at;
  }

  /** The account's latest `limit` receipts, newest first (`idx_erasure_receipt_account_created`). */
  async list(accountId: number, limit: number): Promise<ErasureReceiptRow[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM erasure_receipt WHERE account_id = $1
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map(toReceipt);
  }

  /** One receipt of the account, or null (another account's is not found either). */
  async find(accountId: number, id: string): Promise<ErasureReceiptRow | null> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM erasure_receipt WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    );
    return rows.length === 0 ? null : toReceipt(rows[0]);
  }
}

function toReceipt(row: Row): ErasureReceiptRow {
  return {
    id: row.id,
    accountId: row.account_id,
    campaignId: row.campaign_id,
    phoneHash: row.phone_hash,
    emailHash: row.email_hash,
    keyId: row.key_id,
    counts: row.counts,
    suppressed: row.suppressed,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
  };
}
