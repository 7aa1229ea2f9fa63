/**
 * Every keyset cursor of the dashboard API, forged or altered (docs/security.md#cursors): the
 * lead search, a lead's deliveries, the delivery log, the audit log, the import history and an
 * import's rejected rows. A cursor the service did not make answers 422 in the error envelope,
 * like any bad parameter, and never reaches PostgreSQL with a value it would refuse (a NUL, a
 * number beyond `bigint`, a malformed UUID), which was a 500. A real cursor with one character
 * appended is either refused or names another position that PostgreSQL accepts.
 */
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';

const API = '/dashboard/api';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const UUID = '00000000-0000-4000-8000-000000000000';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** A keyset-paged list: where it is, the cursor of its first page, and how it refuses one. */
interface List {
  name: string;
  /** The list's path with its query, without `cursor`. */
  path: string;
  /** The `next_cursor` of its first page (undefined: none is made, only forged ones are tried). */
  cursor?: string;
  message: string;
  /** Cursors whose text would reach PostgreSQL as a value it refuses. */
  forged: string[];
}

describe('Dashboard cursors, forged or altered (docs/security.md#cursors)', () => {
  let t: TestApp;
  let me: Caller;
  let admin: SignedIn;
  const lists: List[] = [];

  const get = (path: string) => t.http().get(`${API}${path}`).set('Cookie', admin.cookie);
  const upload = (leads: unknown[]) =>
    t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${me.token}`)
      .send(uploadBody(me.campaignId, leads))
      .expect(202);
  const withCursor = (path: string, cursor: string) =>
    `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
  const firstCursor = async (path: string): Promise<string> => {
    const res = await get(path).expect(200);
    expect(typeof res.body.next_cursor).toBe('string');
    return res.body.next_cursor as string;
  };

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false', RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
    me = await t.given.caller('US');
    const user = await givenUser(t, 'admin', me.accountId);
    await signIn(t, user);
    admin = await signIn(t, user);
    await upload([
      { phone: '+14155550100', first_name: 'Ada', last_name: 'Lovelace' },
      { phone: '+14155550101', first_name: 'Adb', last_name: 'Byron' },
      { phone: '12345' },
      { phone: '67890' },
    ]);
    await upload([{ phone: '+14155550102', first_name: 'Grace' }]);
    // Port 9 (discard) refuses at once: each ping is a failed attempt in the log.
    const { id: endpointId } = await t.given.endpoint(me.campaignId, 'http://127.0.0.1:9/hooks', [
      'lead.created',
    ]);
    await t.app.get(DeliveryService).ping(endpointId);
    await t.app.get(DeliveryService).ping(endpointId);
    const [{ id: importId }] = await t.db.query(
      'SELECT id FROM lead_import WHERE campaign_id = $1 AND invalid_count = 2',
      [me.campaignId],
    );
    const [{ id: leadId }] = await t.db.query(
      "SELECT id::int AS id FROM lead WHERE campaign_id = $1 AND first_name = 'Ada'",
      [me.campaignId],
    );
    const search = `/campaigns/${me.campaignId}/leads?q=ad&field=name&limit=1`;
    const log = `/endpoints/${endpointId}/attempts?limit=1`;
    const audit = '/audit-log?limit=1';
    const imports = `/campaigns/${me.campaignId}/imports?limit=1`;
    const rejections = `/imports/${importId}/rejections?limit=1`;
    const listMessage = 'cursor is not a cursor of this list';
    const logMessage = 'cursor is not a cursor of this log: pass next_cursor unchanged';
    lists.push(
      {
        name: 'the lead search',
        path: search,
        cursor: await firstCursor(search),
        message: 'cursor is not a cursor of this search: pass next_cursor unchanged',
        forged: [b64('v1:name:1:\0'), b64('v1:name:1:ada\0 lovelace')],
      },
      {
        name: 'a lead’s deliveries',
        path: `/leads/${leadId}/deliveries`,
        message: logMessage,
        forged: [b64('v1:1:1\0'), b64('v1:9223372036854775808:1')],
      },
      {
        name: 'the delivery log',
        path: log,
        cursor: await firstCursor(log),
        message: logMessage,
        forged: [b64('v1:1:1\0'), b64('v1:9223372036854775808:1')],
      },
      {
        name: 'the audit log',
        path: audit,
        cursor: await firstCursor(audit),
        message: listMessage,
        forged: [b64('1.1\0'), b64('9223372036854775808.1'), b64('9999999999999999999.1')],
      },
      {
        name: 'the import history',
        path: imports,
        cursor: await firstCursor(imports),
        message: listMessage,
        forged: [
          b64(`1.${UUID}\0`),
          b64(`9999999999999999999.${UUID}`),
          b64(`1.${'-'.repeat(36)}`),
          b64(`1.${'0'.repeat(36)}`),
        ],
      },
      {
        name: 'an import’s rejected rows',
        path: rejections,
        cursor: await firstCursor(rejections),
        message: listMessage,
        forged: [b64('r1\0'), b64('r01'), b64('r9999999999')],
      },
    );
  });
  afterAll(() => t.close());

  it('answers a forged cursor whose text PostgreSQL would refuse 422 in the envelope, for every list', async () => {
    for (const list of lists) {
      for (const cursor of list.forged) {
        const res = await get(withCursor(list.path, cursor));
        expect({ list: list.name, cursor, status: res.status, body: res.body }).toEqual({
          list: list.name,
          cursor,
          status: 422,
          body: { error: 'validation_failed', message: list.message },
        });
      }
    }
  });

  it('answers a real cursor with "A" appended (a NUL byte) or "=" (padding) 422, for every list', async () => {
    for (const list of lists.filter((candidate) => candidate.cursor !== undefined)) {
      for (const extra of ['A', '=']) {
        const cursor = `${list.cursor}${extra}`;
        const res = await get(withCursor(list.path, cursor));
        expect({ list: list.name, cursor, status: res.status, body: res.body }).toEqual({
          list: list.name,
          cursor,
          status: 422,
          body: { error: 'validation_failed', message: list.message },
        });
      }
    }
  });

  it('answers a real cursor with any base64url character appended 200 or 422, never 500', async () => {
    for (const list of lists.filter((candidate) => candidate.cursor !== undefined)) {
      for (const extra of BASE64URL) {
        const cursor = `${list.cursor}${extra}`;
        const res = await get(withCursor(list.path, cursor));
        const answer = { list: list.name, cursor, status: res.status };
        if (res.status === 200) {
          expect(answer).toEqual({ ...answer, status: 200 });
          expect(Array.isArray(res.body.items)).toBe(true);
        } else {
          expect({ ...answer, body: res.body }).toEqual({
            ...answer,
            status: 422,
            body: { error: 'validation_failed', message: list.message },
          });
        }
      }
    }
  });

  it('still pages with the cursors it makes', async () => {
    for (const list of lists.filter((candidate) => candidate.cursor !== undefined)) {
      const res = await get(withCursor(list.path, list.cursor!));
      expect({ list: list.name, status: res.status }).toEqual({ list: list.name, status: 200 });
      expect(res.body.items).toHaveLength(1);
    }
  });
});
