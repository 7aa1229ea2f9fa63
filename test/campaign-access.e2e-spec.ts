import { startTestApp, type TestApp, uploadBody, type Caller } from './support/test-app';

const UPLOAD = '/api/v1/leads/upload';

describe('Campaign authorisation (docs/api.md#authentication, docs/api.md#errors)', () => {
  let t: TestApp;
  let me: Caller;
  beforeAll(async () => {
    t = await startTestApp();
    me = await t.given.caller();
  });
  afterAll(() => t.close());

  const upload = (token: string, body: Record<string, unknown>) =>
    t.http().post(UPLOAD).set('Authorization', `Bearer ${token}`).send(body);

  const leadsIn = async (campaignId: number) =>
    (
      await t.db.query('SELECT count(*)::int AS n FROM lead WHERE campaign_id = $1', [campaignId])
    )[0].n as number;

  it("answers 403 for another account's campaign and writes nothing", async () => {
    const other = await t.given.caller();
    const res = await upload(
      me.token,
      uploadBody(other.campaignId, [{ phone: '+14155550100' }]),
    ).expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: expect.any(String) });
    expect(await leadsIn(other.campaignId)).toBe(0);
    const imports = await t.db.query('SELECT 1 FROM lead_import WHERE campaign_id = $1', [
      other.campaignId,
    ]);
    expect(imports).toHaveLength(0);
  });

  it('answers the same 403 for a campaign that does not exist', async () => {
    const [{ max }] = await t.db.query('SELECT coalesce(max(id), 0)::int AS max FROM campaign');
    for (const id of [max + 1000, 2_147_483_647, 2_147_483_648, 9_007_199_254_740_991]) {
      const res = await upload(me.token, uploadBody(id, [{ phone: '+14155550100' }])).expect(403);
      expect(res.body).toEqual({
        error: 'forbidden',
        message: 'This token may not use that campaign',
      });
    }
    const other = await t.given.caller();
    const foreign = await upload(
      me.token,
      uploadBody(other.campaignId, [{ phone: '+14155550100' }]),
    );
    expect(foreign.body).toEqual({
      error: 'forbidden',
      message: 'This token may not use that campaign',
    });
  });

  it('limits a key created with a campaign list to those campaigns', async () => {
    const second = await t.given.campaign(me.accountId);
    const third = await t.given.campaign(me.accountId);
    const limited = await t.given.apiKey(me.accountId, [second]);
    const token = await t.given.token(limited.key);

    const ok = await upload(token, uploadBody(second, [{ phone: '+14155550111' }])).expect(202);
    expect(ok.body.valid_count).toBe(1);
    await upload(token, uploadBody(third, [{ phone: '+14155550111' }])).expect(403);
    await upload(token, uploadBody(me.campaignId, [{ phone: '+14155550111' }])).expect(403);
    expect(await leadsIn(second)).toBe(1);
    expect(await leadsIn(third)).toBe(0);
  });

  it.each([
    ['missing', undefined],
    ['a numeric string', '1'],
    ['zero', 0],
    ['negative', -3],
    ['a fraction', 1.5],
    ['null', null],
    ['a boolean', true],
    ['an array', [1]],
  ])('answers 400 invalid_campaign_id when campaign_id is %s', async (_name, campaignId) => {
    const body: Record<string, unknown> = uploadBody(me.campaignId, [{ phone: '+14155550100' }]);
    if (campaignId === undefined) delete body.campaign_id;
    else body.campaign_id = campaignId;
    const res = await upload(me.token, body).expect(400);
    expect(res.body).toEqual({
      error: 'invalid_campaign_id',
      message: expect.stringContaining('campaign_id'),
    });
  });
});
