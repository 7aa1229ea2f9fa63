import { CampaignNotFoundError } from '../campaigns/campaign-errors';
import { NotFoundError } from '../common/domain-error';
import type { AccountAccessRepository, OwnedLookup } from './account-access.repository';
import { AccountAccessService } from './account-access.service';

/** A repository that finds what `owned` lists, and records each query it is asked. */
function serviceFinding(owned: Record<string, string[]>) {
  const queries: Array<{ accountId: number; lookups: OwnedLookup[] }> = [];
  const repository = {
    owned: (accountId: number, lookups: readonly OwnedLookup[]) => {
      queries.push({ accountId, lookups: [...lookups] });
      return Promise.resolve(
        new Map(
          lookups.map(({ kind, ids }) => [
            kind,
            new Set(ids.filter((id) => owned[kind]?.includes(id))),
          ]),
        ),
      );
    },
  } as unknown as AccountAccessRepository;
  return { service: new AccountAccessService(repository), queries };
}

describe('AccountAccessService (docs/architecture.md#account-access)', () => {
  it('asks every kind a request names in one query, each id once, in the type of its column', async () => {
    const { service, queries } = serviceFinding({
      endpoint: ['7'],
      lead: ['3000000000'],
      import: ['0f8fad5b-d9cb-469f-a165-70867728950e'],
    });
    expect(
      await service.owned(1, [
        { resource: 'endpoint', id: 7 },
        { resource: 'endpoint', id: 7 },
        { resource: 'lead', id: 3_000_000_000 },
        { resource: 'import', id: '0F8FAD5B-D9CB-469F-A165-70867728950E' },
        { resource: 'campaign', id: 9 },
      ]),
    ).toEqual([true, true, true, true, false]);
    expect(queries).toEqual([
      {
        accountId: 1,
        lookups: [
          { kind: 'endpoint', type: 'integer', ids: ['7'] },
          { kind: 'lead', type: 'bigint', ids: ['3000000000'] },
          { kind: 'import', type: 'uuid', ids: ['0f8fad5b-d9cb-469f-a165-70867728950e'] },
          { kind: 'campaign', type: 'integer', ids: ['9'] },
        ],
      },
    ]);
  });

  it('answers an id its column cannot hold as not owned, without asking', async () => {
    const { service, queries } = serviceFinding({});
    expect(
      await service.owned(1, [
        { resource: 'endpoint', id: 2_147_483_648 },
        { resource: 'api-key', id: 0 },
        { resource: 'import', id: 5 },
      ]),
    ).toEqual([false, false, false]);
    expect(queries).toEqual([]);
  });

  it('throws the domain’s not-found error for the first resource not of the account', async () => {
    const { service } = serviceFinding({ endpoint: ['7'] });
    await expect(service.requireAll(1, [{ resource: 'endpoint', id: 7 }])).resolves.toBeUndefined();
    await expect(service.requireAll(1, [{ resource: 'campaign', id: 3 }])).rejects.toEqual(
      new CampaignNotFoundError(3),
    );
    await expect(
      service.requireAll(1, [
        { resource: 'endpoint', id: 7 },
        { resource: 'spreadsheet-import', id: '0f8fad5b-d9cb-469f-a165-70867728950e' },
        { resource: 'api-key', id: 4 },
      ]),
    ).rejects.toThrow(
      new NotFoundError('spreadsheet import 0f8fad5b-d9cb-469f-a165-70867728950e does not exist'),
    );
    await expect(service.requireAll(1, [{ resource: 'api-key', id: 4 }])).rejects.toThrow(
      'api key 4 does not exist',
    );
  });
});
