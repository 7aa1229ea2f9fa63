import type { DataSource, EntityManager } from 'typeorm';
import { CampaignNotFoundError } from '../../campaigns/campaign-errors';
import { breaksCampaignForeignKey, LeadsRepository, violatesUniquePhone } from './leads.repository';

const pgError = (code: string, constraint?: string) =>
  Object.assign(new Error(`sqlstate ${code}`), { driverError: { code, constraint } });

describe('breaksCampaignForeignKey', () => {
  it('recognises a foreign-key violation of lead_import against campaign', () => {
    expect(breaksCampaignForeignKey(pgError('23503', 'fk_lead_import_campaign'))).toBe(true);
  });

  it('ignores other constraints and other errors', () => {
    expect(breaksCampaignForeignKey(pgError('23503', 'fk_lead_import_api_key'))).toBe(false);
    // A lead's import is written in the same transaction, before the leads.
    expect(breaksCampaignForeignKey(pgError('23503', 'fk_lead_lead_import'))).toBe(false);
    expect(breaksCampaignForeignKey(pgError('23503'))).toBe(false);
    expect(breaksCampaignForeignKey(pgError('23505', 'fk_lead_import_campaign'))).toBe(false);
    expect(breaksCampaignForeignKey(new Error('fk_lead_import_campaign'))).toBe(false);
    expect(breaksCampaignForeignKey(undefined)).toBe(false);
  });
});

describe('LeadsRepository.inImportTransaction', () => {
  /** A DataSource whose transaction runs `work` with a dummy manager, or fails with `error`. */
  function repositoryWith(error?: unknown) {
    const manager = {} as EntityManager;
    const transaction = jest.fn(
      async (isolation: string, work: (m: EntityManager) => Promise<unknown>) => {
        expect(isolation).toBe('READ COMMITTED');
        if (error !== undefined) throw error;
        return work(manager);
      },
    );
    const repository = new LeadsRepository({ transaction } as unknown as DataSource);
    return { repository, manager, transaction };
  }

  it('runs the work in a READ COMMITTED transaction and returns its result', async () => {
    const { repository, manager, transaction } = repositoryWith();
    const work = jest.fn(async () => 'written');
    await expect(repository.inImportTransaction(42, work)).resolves.toBe('written');
    expect(work).toHaveBeenCalledWith(manager);
    expect(transaction).toHaveBeenCalledTimes(1);
  });

  it('turns a broken campaign foreign key into CampaignNotFoundError', async () => {
    const { repository } = repositoryWith(pgError('23503', 'fk_lead_import_campaign'));
    const failure = repository.inImportTransaction(42, async () => 'never');
    await expect(failure).rejects.toBeInstanceOf(CampaignNotFoundError);
    await expect(failure).rejects.toMatchObject({ campaignId: 42, code: 'not_found' });
  });

  it('rethrows any other error as it is', async () => {
    const deadlock = pgError('40P01');
    const { repository } = repositoryWith(deadlock);
    await expect(repository.inImportTransaction(42, async () => 'never')).rejects.toBe(deadlock);
  });
});

describe('violatesUniquePhone', () => {
  it('recognises a unique violation of uq_lead_campaign_id_phone only', () => {
    expect(violatesUniquePhone(pgError('23505', 'uq_lead_campaign_id_phone'))).toBe(true);
    expect(violatesUniquePhone(pgError('23505', 'PK_lead'))).toBe(false);
    expect(violatesUniquePhone(pgError('23503', 'uq_lead_campaign_id_phone'))).toBe(false);
    expect(violatesUniquePhone(new Error('uq_lead_campaign_id_phone'))).toBe(false);
  });
});

describe('LeadsRepository.insertIgnoringDuplicates', () => {
  const context = { importId: 'i', campaignId: 42, source: 'api', tags: [] };
  const lead = (phone: string) => ({
    phone,
    first_name: null,
    last_name: null,
    email: null,
    company: null,
    title: null,
  });
  const leads = [lead('+12123744203'), lead('+14155552671')];
  const createdAt = new Date('2026-01-02T03:04:05.678Z');

  /**
   * A manager whose plain INSERT fails with `plainError` (or succeeds) and whose ON CONFLICT
   * insert creates the first lead only; records the statements.
   */
  function managerWith(plainError?: unknown) {
    const statements: string[] = [];
    const query = jest.fn(async (sql: string) => {
      const upsert = sql.includes('ON CONFLICT');
      statements.push(sql.startsWith('INSERT') ? (upsert ? 'UPSERT' : 'INSERT') : sql);
      if (sql.startsWith('SELECT now()')) return [{ now: createdAt }];
      if (sql.startsWith('SELECT id, phone, created_at')) {
        return [
          { id: '7', phone: leads[0].phone, created_at: createdAt },
          { id: '8', phone: leads[1].phone, created_at: createdAt },
        ];
      }
      if (sql.startsWith('INSERT') && !upsert && plainError) throw plainError;
      if (upsert) return [{ id: '7', phone: leads[0].phone }];
      return [];
    });
    return { manager: { query } as unknown as EntityManager, statements };
  }

  it('inserts under a savepoint, without ON CONFLICT or RETURNING, when no phone is taken', async () => {
    const { manager, statements } = managerWith();
    const repository = new LeadsRepository({} as DataSource);
    const inserted = await repository.insertIgnoringDuplicates(manager, context, leads);
    expect(inserted).toMatchObject({ all: true, count: 2 });
    expect(statements).toEqual([
      'SAVEPOINT lead_insert',
      'INSERT',
      'RELEASE SAVEPOINT lead_insert',
    ]);
    expect(statements.join(' ')).not.toContain('RETURNING');
    // The ids are read back by import_id only when asked for.
    await expect(inserted.read()).resolves.toEqual([
      { id: 7, phone: leads[0].phone, created_at: createdAt },
      { id: 8, phone: leads[1].phone, created_at: createdAt },
    ]);
    expect(statements.at(-1)).toBe('SELECT id, phone, created_at FROM lead WHERE import_id = $1');
  });

  it('rolls back to the savepoint and lets ON CONFLICT DO NOTHING decide when a phone is taken', async () => {
    const { manager, statements } = managerWith(pgError('23505', 'uq_lead_campaign_id_phone'));
    const repository = new LeadsRepository({} as DataSource);
    const inserted = await repository.insertIgnoringDuplicates(manager, context, leads);
    expect(statements).toEqual([
      'SAVEPOINT lead_insert',
      'INSERT',
      'ROLLBACK TO SAVEPOINT lead_insert',
      'UPSERT',
      'SELECT now() AS now',
    ]);
    expect(inserted).toMatchObject({ all: false, count: 1, phones: new Set([leads[0].phone]) });
    await expect(inserted.read()).resolves.toEqual([
      { id: 7, phone: leads[0].phone, created_at: createdAt },
    ]);
  });

  it('rethrows any other error of the insert', async () => {
    const broken = pgError('23503', 'fk_lead_lead_import');
    const { manager } = managerWith(broken);
    const repository = new LeadsRepository({} as DataSource);
    await expect(repository.insertIgnoringDuplicates(manager, context, leads)).rejects.toBe(broken);
  });
});
