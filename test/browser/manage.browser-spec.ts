import { createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import {
  launchChromium,
  openPage,
  type ViewportName,
  type WatchedPage,
  closeCheckedPages,
  submitSignIn,
} from './support/browser';
import { lineCount, overhang } from './support/geometry';
import { cli, givenUserOf, startDashboardService, type DashboardService } from './support/service';

/** The secret custom header value the endpoint form sets. */
const BROWSER_TOKEN = 'Bearer browser-0123456789abcdef';
/** A request the local webhook receiver got. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers 200 with a small JSON body and keeps every request. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: true, receiver: 'browser-test' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, received };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * What a signed-in user does with the dashboard (docs/dashboard.md, controls by their accessible names),
 * against the real service with its delivery worker, delivering to a local receiver: endpoints,
 * test events, the delivery log, redelivery, secrets, API keys, the audit log and a viewer's
 * read-only view. The tests run in order and build on each other.
 */
describe('Managing webhooks, keys and the audit log in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let accountId: number;
  let campaignId: number;
  let admin: { email: string };
  let viewer: { email: string };
  let apiKey: string;
  let endpointId: number;
  let firstSecret: string;
  const pages: WatchedPage[] = [];

  async function signedInPage(
    who: { email: string },
    viewport: ViewportName = 'desktop',
  ): Promise<WatchedPage> {
    const watched = await openPage(browser, service.origin, viewport);
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    await watched.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: service.origin,
    });
    const { page } = watched;
    await page.goto('/dashboard/');
    await submitSignIn(page, who.email, PASSWORD);
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    return watched;
  }

  async function bearer(key = apiKey): Promise<string> {
    const response = await fetch(`${service.origin}/api/v1/auth/api-key/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  async function publicEndpoints(): Promise<Array<{ id: number; url: string }>> {
    const response = await fetch(`${service.origin}/api/v1/webhooks/${campaignId}/endpoints`, {
      headers: { authorization: `Bearer ${await bearer()}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Array<{ id: number; url: string }>;
  }

  async function openEndpoint(page: Page): Promise<void> {
    await page.goto(`/dashboard/endpoints/${endpointId}`);
    // Named by its description: "CRM sync", edited below to "CRM sync (edited)".
    await page.getByRole('heading', { name: /^CRM sync/, level: 1 }).waitFor();
    await page.getByText(`Webhook endpoint ${endpointId} of`).waitFor();
  }

  /** Clicks **Send test event** on an endpoint's page; the request the receiver got for it. */
  async function sendTestEvent(page: Page) {
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByTestId('test-result').waitFor();
    await waitFor('the next delivery', () =>
      receiver.received.length > before ? true : undefined,
    );
    const next = receiver.received.at(-1)!;
    return { next, headers: next.headers as Record<string, string> };
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    browser = await launchChromium();
    const env = service.env;
    accountId = cli(env, ['account', 'create', '--name', `Browser manage ${process.pid}`])
      .id as number;
    campaignId = cli(env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Spring open house',
      '--region',
      'US',
    ]).id as number;
    cli(env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Autumn fair',
      '--region',
      'GB',
    ]);
    apiKey = cli(env, ['api-key', 'create', '--account', String(accountId), '--name', 'test-sync'])
      .api_key as string;
    admin = givenUserOf(env, accountId, 'admin', PASSWORD);
    viewer = givenUserOf(env, accountId, 'viewer', PASSWORD);
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('creates an endpoint through the form; the secret is shown once; the public API lists it', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    const row = page.getByRole('row').filter({ hasText: 'Spring open house' });
    await row.waitFor();
    expect(await row.innerText()).toContain('US');
    await watched.screenshot('campaigns-list-desktop');

    await page.getByRole('link', { name: 'Spring open house' }).click();
    await page.getByRole('heading', { name: 'Spring open house', level: 1 }).waitFor();
    await page.getByText('No webhook endpoints yet').waitFor();
    await page.getByRole('link', { name: 'Add endpoint' }).first().click();
    await page.getByLabel('URL', { exact: true }).waitFor();

    // A URL that is not http(s) is refused in the browser, at the field, before anything is sent.
    await page.getByRole('checkbox', { name: 'lead.created', exact: true }).check();
    const url = page.getByLabel('URL', { exact: true });
    await url.fill('ftp://example.com/hooks');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByText('The URL must start with https:// or http://, not ftp:').waitFor();
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    // One the service refuses is said at the field too, in its words, not in a banner.
    watched.expectFailure(422, `/dashboard/api/campaigns/${campaignId}/endpoints`);
    await url.fill('https://user:secret@example.com/hooks');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByText('url must not contain credentials').waitFor();
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(
      await page.getByRole('alert').filter({ hasText: 'The endpoint was not saved' }).count(),
    ).toBe(0);

    await page.getByLabel('URL', { exact: true }).fill(receiver.url);
    await page.getByLabel('Description', { exact: true }).fill('CRM sync');
    await page.getByRole('checkbox', { name: 'leads.bulk_created', exact: true }).check();
    // The example payload of a type is one click away.
    await page.getByRole('button', { name: 'Show example of lead.created' }).click();
    await page.getByText('"campaign_id"').filter({ visible: true }).waitFor();
    // Custom headers: every control is found by its label; the secret value by a password field.
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name').fill('X-Tenant');
    await page.getByLabel('Header 1 value').fill('acme');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 2 name').fill('Authorization');
    await page.getByLabel('Header 2 secret').check();
    expect(await page.getByLabel('Header 2 value').getAttribute('type')).toBe('password');
    await page.getByLabel('Header 2 value').fill(BROWSER_TOKEN);
    await watched.screenshot('endpoint-form-desktop');
    await page.getByRole('button', { name: 'Create endpoint' }).click();

    const secret = page.getByTestId('secret-text');
    await secret.waitFor();
    firstSecret = (await secret.innerText()).trim();
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    // A new endpoint's secret: no reveal is offered on this page, so it says to copy it now.
    await page.getByText('it is shown only once').waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(firstSecret);
    await watched.screenshot('endpoint-created-desktop');

    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await page.waitForURL(/\/dashboard\/endpoints\/\d+$/);
    endpointId = Number(new URL(page.url()).pathname.split('/').pop());
    const listed = await publicEndpoints();
    expect(listed.map((e) => e.id)).toContain(endpointId);
    expect(listed.find((e) => e.id === endpointId)!.url).toBe(receiver.url);

    // The secret is not shown again on the endpoint's page.
    expect(await page.getByText(firstSecret).count()).toBe(0);
    // Its custom headers are listed, the secret one masked.
    const headers = page.getByRole('table', { name: 'Custom headers' });
    await headers.getByText('X-Tenant').waitFor();
    await headers.getByText('••••cdef').waitFor();
    expect(await page.getByText(BROWSER_TOKEN).count()).toBe(0);
  });

  it('sends a test event to the local receiver and shows its result', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await openEndpoint(page);
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    const result = page.getByTestId('test-result');
    await result.waitFor();
    const text = await result.innerText();
    expect(text).toContain('Status 200');
    expect(text).toMatch(/\d+ ms|\d\.\d+ s/);
    expect(text).toContain('browser-test');
    expect(receiver.received.length).toBe(before + 1);
    const ping = receiver.received.at(-1)!;
    expect(String(ping.headers['webhook-id'])).toMatch(/^ping_/);
    new Webhook(firstSecret).verify(ping.body, ping.headers as Record<string, string>);
    expect(ping.headers['x-tenant']).toBe('acme');
    expect(ping.headers.authorization).toBe(BROWSER_TOKEN);

    // A chosen event type sends its example.
    await page.getByLabel('Event to send').selectOption('lead.created');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await waitFor('the example event', () =>
      receiver.received.length === before + 2 ? true : undefined,
    );
    expect(JSON.parse(receiver.received.at(-1)!.body).type).toBe('lead.created');
    await page.getByTestId('health').getByText('2', { exact: true }).waitFor();
    await watched.screenshot('endpoint-desktop');

    await page.getByRole('link', { name: 'Spring open house' }).click();
    await page.getByRole('heading', { name: 'Spring open house', level: 1 }).waitFor();
    await page.getByTestId('health').getByText('100 %').waitFor();
    await watched.screenshot('campaign-desktop');
  });

  it('shows an upload’s delivery in the log: filter, open, redeliver', async () => {
    const upload = await fetch(`${service.origin}/api/v1/leads/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await bearer()}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        campaign_id: campaignId,
        compliance_acknowledged: true,
        leads: [{ phone: '+14155550100' }],
      }),
    });
    expect(upload.status).toBe(202);
    const delivered = await waitFor('the upload’s delivery', () =>
      receiver.received.find(
        (r) =>
          JSON.parse(r.body).type === 'lead.created' &&
          !String(r.headers['webhook-id']).startsWith('test_'),
      ),
    );
    const webhookId = String(delivered.headers['webhook-id']);

    const watched = await signedInPage(admin);
    const { page } = watched;
    await openEndpoint(page);
    const log = page.getByTestId('delivery-log');
    await waitFor('the delivery in the log', async () => {
      if ((await page.getByText(webhookId).count()) > 0) return true;
      await page
        .getByRole('region', { name: 'Delivery log' })
        .getByRole('button', { name: 'Refresh' })
        .click();
      await page.waitForTimeout(300);
      return undefined;
    });
    // The ledger counts the upload's two deliveries, both delivered, on today's row (UTC); test
    // events belong to no delivery.
    const ledger = page.getByRole('region', { name: 'Delivery ledger' });
    await waitFor('the deliveries in the ledger', async () => {
      const today = await ledger.getByTestId('ledger-row').first().innerText();
      if (today.split(/\s+/).slice(1).join(' ') === '2 2 0 0 0 0 0') return true;
      await ledger.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(300);
      return undefined;
    });
    expect(await ledger.getByTestId('ledger-row').count()).toBe(7);
    expect(
      await ledger
        .getByRole('table', { name: 'Delivery ledger' })
        .getByRole('columnheader')
        .allInnerTexts(),
    ).toEqual([
      'Day (UTC)',
      'Matched',
      'Delivered',
      'Failed',
      'Pending',
      'Of which throttled',
      'Skipped',
      'Filtered out',
    ]);
    await ledger.scrollIntoViewIfNeeded();
    await watched.screenshot('delivery-ledger-desktop');

    // Newest first: the upload's two deliveries (lead.created, leads.bulk_created) came after
    // the two test events.
    const rows = log.getByTestId('attempt-row');
    expect(await rows.count()).toBe(4);
    const newest = `${await rows.nth(0).innerText()} ${await rows.nth(1).innerText()}`;
    expect(newest).toContain(webhookId);
    expect(await rows.nth(3).innerText()).toContain('ping');
    // Times are <Timestamp>s: the viewer's zone, UTC on hover.
    expect(await rows.first().locator('time').getAttribute('data-utc')).toMatch(/ UTC$/);

    // Filters: the event type, then an outcome nothing has.
    await page.getByLabel('Event type', { exact: true }).selectOption('ping');
    await waitFor('the ping filter', async () =>
      (await rows.count()) === 1 && !(await rows.first().innerText()).includes(webhookId)
        ? true
        : undefined,
    );
    expect(await rows.first().innerText()).toContain('ping');
    await page.getByLabel('Event type', { exact: true }).selectOption('lead.created');
    await waitFor('the lead.created filter', async () =>
      (await rows.count()) === 2 ? true : undefined,
    );
    await page.getByLabel('Outcome', { exact: true }).selectOption('failed');
    await page.getByText('No delivery attempt matches these filters').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await waitFor('the unfiltered log', async () => ((await rows.count()) >= 3 ? true : undefined));
    await watched.screenshot('delivery-log-desktop');

    // Open the delivery's attempt: the request as sent, the signature cut short.
    await rows
      .filter({ hasText: webhookId })
      .getByRole('button', { name: /^Open attempt/ })
      .click();
    const drawer = page.getByRole('dialog');
    await drawer.getByTestId('request-body').waitFor();
    expect(await drawer.getByTestId('request-body').innerText()).toContain('"lead.created"');
    const headers = await drawer.getByRole('table', { name: 'Request headers' }).innerText();
    expect(headers).toContain(webhookId);
    expect(headers).toMatch(/v1,[A-Za-z0-9+/=]{12}…/);
    expect(headers).not.toContain(String(delivered.headers['webhook-signature']));
    expect(await drawer.getByTestId('response-excerpt').innerText()).toContain('browser-test');
    await watched.screenshot('attempt-desktop');

    const before = receiver.received.length;
    await drawer.getByRole('button', { name: 'Redeliver' }).click();
    await drawer.getByText(/Redelivered: succeeded, HTTP 200/).waitFor();
    expect(receiver.received.length).toBe(before + 1);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(webhookId);
    await page.keyboard.press('Escape');
    await page
      .getByRole('region', { name: 'Delivery log' })
      .getByRole('button', { name: 'Refresh' })
      .click();
    await waitFor('the redelivery in the log', async () =>
      (await log.getByText(webhookId).count()) === 2 ? true : undefined,
    );
  });

  it('reveals the secret, rotates it, and the next delivery verifies with the new one', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await openEndpoint(page);
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = page.getByTestId('secret-text');
    await secret.waitFor();
    expect((await secret.innerText()).trim()).toBe(firstSecret);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(firstSecret);
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    await watched.screenshot('rotate-confirm-desktop');
    await dialog.getByRole('button', { name: 'Rotate now' }).click();
    await page.getByText('New signing secret').waitFor();
    const rotated = (await page.getByTestId('secret-text').innerText()).trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(firstSecret);
    // Said once, and the new secret is not claimed to be shown only once: Reveal secret shows it.
    expect(await page.getByText('The previous signing secret stays valid until').count()).toBe(1);
    expect(await page.getByText(/shown only once/).count()).toBe(0);
    await page.getByText('show it again later with Reveal secret').waitFor();
    await watched.screenshot('secret-rotated-desktop');

    const { next, headers } = await sendTestEvent(page);
    new Webhook(rotated).verify(next.body, headers);
    // Both secrets sign it until the previous one expires.
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
  });

  it('edits the endpoint', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await openEndpoint(page);
    await page.getByRole('link', { name: 'Edit endpoint' }).click();
    const description = page.getByLabel('Description', { exact: true });
    await description.waitFor();
    expect(await description.inputValue()).toBe('CRM sync');
    expect(
      await page.getByRole('checkbox', { name: 'lead.created', exact: true }).isChecked(),
    ).toBe(true);
    await description.fill('CRM sync (edited)');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`**/dashboard/endpoints/${endpointId}`);
    await page.getByRole('heading', { name: 'CRM sync (edited)', level: 1 }).waitFor();
  });

  it('switches the endpoint to ed25519: its public key, found by its label, verifies the next delivery', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await openEndpoint(page);
    await page.getByRole('button', { name: 'Switch to asymmetric' }).click();
    const dialog = page.getByRole('dialog', { name: /^Switch to Asymmetric/ });
    await dialog.getByRole('button', { name: 'Switch now' }).click();
    const field = page.getByLabel('Public key', { exact: true });
    await field.waitFor();
    const publicKey = await field.inputValue();
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    await page.getByRole('button', { name: 'Copy public key' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(publicKey);
    expect(await page.getByRole('button', { name: 'Reveal secret' }).count()).toBe(0);
    await watched.screenshot('public-key-desktop');

    const { next, headers } = await sendTestEvent(page);
    const key = createPublicKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(publicKey.slice(5), 'base64').toString('base64url'),
      },
      format: 'jwk',
    });
    const [v1a] = headers['webhook-signature'].split(' ').filter((e) => e.startsWith('v1a,'));
    const content = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${next.body}`;
    expect(verify(null, Buffer.from(content), key, Buffer.from(v1a.slice(4), 'base64'))).toBe(true);
  });

  it('creates an API key (shown once, with Copy) and revokes it after a confirmation', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('row').filter({ hasText: 'test-sync' }).waitFor();
    await page.getByRole('button', { name: 'New API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('browser-key');
    await page.getByRole('checkbox', { name: 'Spring open house' }).check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('secret-text');
    await shown.waitFor();
    const key = (await shown.innerText()).trim();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    await watched.screenshot('api-key-created-desktop');
    await bearer(key);

    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row').filter({ hasText: 'browser-key' });
    expect(await row.innerText()).toContain('Spring open house');
    expect((await row.innerText()).toLowerCase()).toContain('active');
    await page.getByRole('button', { name: 'Revoke browser-key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Revoke the key' }).click();
    await row.getByText('Revoked', { exact: true }).waitFor();
    await watched.screenshot('api-keys-list-desktop');
    await waitFor('the revoked key to be refused', async () => {
      const response = await fetch(`${service.origin}/api/v1/auth/api-key/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: key }),
      });
      return response.status === 401 ? true : undefined;
    });
  });

  it('shows the changes in the audit log, newest first, never a secret', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    const table = page.getByTestId('audit-log');
    await table.waitFor();
    const text = await table.innerText();
    for (const action of [
      'session.sign_in',
      'endpoint.create',
      'endpoint.update',
      'secret.reveal',
      'secret.rotate',
      'api_key.create',
      'api_key.revoke',
    ]) {
      expect(text).toContain(action);
    }
    expect(text).toContain(admin.email);
    expect(text.toLowerCase()).toContain('cli');
    expect(text).not.toContain(firstSecret);
    expect(text).not.toContain('whsec_');
    // Newest first: the revocation comes before the key's creation.
    expect(text.indexOf('api_key.revoke')).toBeLessThan(text.indexOf('api_key.create'));
    // At 1280 px the table fits its box: each email on one line, the details inside the box.
    const box = table.locator('xpath=ancestor::div[contains(@class, "mantine-Paper-root")][1]');
    const who = table.getByText(admin.email, { exact: true });
    for (const email of await who.all()) expect(await lineCount(email)).toBe(1);
    for (const details of await table.getByTestId('audit-details').all()) {
      expect(await overhang(details, box)).toBeLessThanOrEqual(0);
    }
    await watched.screenshot('audit-log-entries-desktop');
  });

  it('shows a viewer no change buttons, and the service refuses a forged change (403)', async () => {
    const watched = await signedInPage(viewer);
    const { page } = watched;
    await page.getByRole('link', { name: 'Spring open house' }).click();
    await page.getByRole('heading', { name: 'Spring open house', level: 1 }).waitFor();
    await page.getByRole('link', { name: receiver.url }).waitFor();
    expect(await page.getByRole('link', { name: 'Add endpoint' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);

    await openEndpoint(page);
    await page.getByTestId('delivery-log').waitFor();
    for (const name of [
      'Send test event',
      'Rotate secret',
      'Reveal secret',
      'Delete endpoint',
      'Redeliver',
    ]) {
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    }
    expect(await page.getByRole('link', { name: 'Edit endpoint' }).count()).toBe(0);
    expect(await page.getByLabel('Public key', { exact: true }).inputValue()).toMatch(/^whpk_/);
    expect(await page.getByRole('button', { name: /^Switch to/ }).count()).toBe(0);
    await page
      .getByTestId('attempt-row')
      .first()
      .getByRole('button', { name: /^Open attempt/ })
      .click();
    await page.getByRole('dialog').getByTestId('request-body').waitFor();
    expect(await page.getByRole('button', { name: 'Redeliver' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await watched.screenshot('endpoint-viewer-desktop');

    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'test-sync' }).waitFor();
    expect(await page.getByRole('button', { name: 'New API key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);

    // A change forged from the viewer's own page, with the session's CSRF token: 403.
    watched.expectFailure(403, `/dashboard/api/endpoints/${endpointId}/secret/reveal`);
    watched.expectFailure(403, `/dashboard/api/endpoints/${endpointId}`);
    const statuses = await page.evaluate<number[]>(`(async () => {
      const session = await (await fetch('/dashboard/api/session')).json();
      const headers = { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token };
      const reveal = await fetch('/dashboard/api/endpoints/${endpointId}/secret/reveal', { method: 'POST', headers, body: '{}' });
      const remove = await fetch('/dashboard/api/endpoints/${endpointId}', { method: 'DELETE', headers: { 'x-csrf-token': session.csrf_token } });
      return [reveal.status, remove.status];
    })()`);
    expect(statuses).toEqual([403, 403]);
    expect((await publicEndpoints()).map((e) => e.id)).toContain(endpointId);
  });

  it('works at 390 px: the endpoint page, API keys and audit log fit', async () => {
    const watched = await signedInPage(admin, 'mobile');
    const { page } = watched;
    await openEndpoint(page);
    await page.getByTestId('delivery-log').waitFor();
    expect(await horizontalOverflow(page)).toBe(false);
    // A secret header's mask and each webhook-id stay on one line, inside their card.
    const mask = page.getByRole('table', { name: 'Custom headers' }).getByText('••••cdef');
    expect(await lineCount(mask)).toBe(1);
    const attempts = page.getByTestId('delivery-log').locator(':scope > li');
    for (const card of await attempts.all()) {
      const id = card.locator('code').first();
      expect(await lineCount(id)).toBe(1);
      expect(await overhang(id, card)).toBeLessThanOrEqual(0);
      expect(await id.getAttribute('title')).toBe(await id.innerText());
    }
    await watched.screenshot('endpoint-mobile');
    await page.goto(`/dashboard/campaigns/${campaignId}`);
    await page.getByRole('heading', { name: 'Spring open house', level: 1 }).waitFor();
    await page.getByTestId('health').first().waitFor();
    expect(await horizontalOverflow(page)).toBe(false);
    await watched.screenshot('campaign-mobile');
    await page.goto('/dashboard/api-keys');
    await page.getByTestId('api-keys').waitFor();
    expect(await horizontalOverflow(page)).toBe(false);
    await watched.screenshot('api-keys-mobile');
    await page.goto('/dashboard/audit-log');
    await page.getByTestId('audit-log').waitFor();
    expect(await horizontalOverflow(page)).toBe(false);
    await watched.screenshot('audit-log-mobile');
    // The endpoint form with a type's JSON Schema open, beside its example.
    await page.goto(`/dashboard/campaigns/${campaignId}/endpoints/new`);
    await page.getByRole('button', { name: 'Show JSON Schema of lead.created' }).click();
    await page.getByLabel('JSON Schema of lead.created').getByText('"LeadCreatedEvent"').waitFor();
    expect(await horizontalOverflow(page)).toBe(false);
    await watched.screenshot('endpoint-form-schema-mobile');
  });

  it('deletes the endpoint after a confirmation; the public API no longer lists it', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await openEndpoint(page);
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await publicEndpoints()).map((e) => e.id)).toContain(endpointId);

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await dialog.getByRole('button', { name: 'Delete it' }).click();
    await page.waitForURL(`**/dashboard/campaigns/${campaignId}`);
    await page.getByText('No webhook endpoints yet').waitFor();
    await watched.screenshot('campaign-empty-desktop');
    expect((await publicEndpoints()).map((e) => e.id)).not.toContain(endpointId);
  });

  it('creates an endpoint with the keyboard alone', async () => {
    const watched = await signedInPage(admin);
    const { page } = watched;
    await page.goto(`/dashboard/campaigns/${campaignId}`);
    await page.getByRole('heading', { name: 'Spring open house', level: 1 }).waitFor();
    const tabTo = async (locator: ReturnType<Page['getByRole']>) => {
      for (let i = 0; i < 40; i++) {
        if (await locator.evaluate((e) => e === e.ownerDocument.activeElement).catch(() => false)) {
          return;
        }
        await page.keyboard.press('Tab');
      }
      throw new Error(`${String(locator)} never got the focus`);
    };
    await tabTo(page.getByRole('link', { name: 'Add endpoint' }).first());
    await page.keyboard.press('Enter');
    const url = page.getByLabel('URL', { exact: true });
    await url.waitFor();
    await tabTo(url);
    await page.keyboard.type(`${receiver.url}/keyboard`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('Typed');
    await tabTo(page.getByRole('checkbox', { name: 'lead.converted', exact: true }));
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText('"conversion"').filter({ visible: true }).waitFor();
    await tabTo(page.getByRole('button', { name: 'Create endpoint' }));
    await page.keyboard.press('Enter');
    await page.getByTestId('secret-text').waitFor();
    const listed = await publicEndpoints();
    expect(listed.map((e) => e.url)).toContain(`${receiver.url}/keyboard`);
  });
});

/** Whether the page is wider than the viewport (something does not fit). */
async function horizontalOverflow(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');
}
