import type { DataSource, EntityManager } from 'typeorm';
import { CampaignNotFoundError } from '../campaigns/campaign-errors';
import { breaksCampaignForeignKey, LeadsRepository } from './leads.repository';

const pgError = (code: string, constraint?: string) =>
  Object.assign(new Error(`sqlstate ${code}`), { driverError: { code, constraint } });

describe('breaksCampaignForeignKey', () => {
  it('recognises a foreign-key violation of lead_import or lead against campaign', () => {
    expect(breaksCampaignForeignKey(pgError('23503', 'fk_lead_import_campaign'))).toBe(true);
    expect(breaksCampaignForeignKey(pgError('23503', 'fk_lead_campaign'))).toBe(true);
  });

  it('ignores other constraints and other errors', () => {
    expect(breaksCampaignForeignKey(pgError('23503', 'fk_lead_import_api_key'))).toBe(false);
    expect(breaksCampaignForeignKey(pgError('23503'))).toBe(false);
    expect(breaksCampaignForeignKey(pgError('23505', 'fk_lead_campaign'))).toBe(false);
    expect(breaksCampaignForeignKey(new Error('fk_lead_campaign'))).toBe(false);
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
