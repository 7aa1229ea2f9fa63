import { createServer, type Server } from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  closeCheckedPages,
  launchChromium,
  openPage,
  submitSignIn,
  uploadSpreadsheet,
  type ViewportName,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import { uploadLeads } from './support/public-api';
import {
  cli,
  givenDashboardUser,
  givenEndpointOfNewAccount,
  givenUserOf,
  LOCAL_DELIVERY_WATCHED,
  startDashboardService,
  type DashboardService,
} from './support/service';

/** A receiver that answers every delivery 503: each stays pending, its next retry an hour away. */
async function startBusyReceiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(503, { 'content-type': 'text/plain', 'x-receiver-state': 'draining' });
      response.end('busy');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The value a card of `list` shows under `label` (its `<dd>`). */
function cardValue(card: Locator, label: string): Locator {
  return card.locator(`xpath=.//dt[normalize-space()="${label}"]/following-sibling::dd[1]`);
}

/**
 * Asserts `value` reads `text` and is on screen at its width: scrolled to, visible, and wholly
 * between the viewport's left and right edges, its own text not cut (a badge's ellipsis).
 */
async function expectOnScreen(page: Page, value: Locator, text: string | RegExp): Promise<void> {
  await value.scrollIntoViewIfNeeded();
  expect(await value.isVisible()).toBe(true);
  const shown = (await value.innerText()).trim();
  if (typeof text === 'string') expect(shown.toLowerCase()).toBe(text.toLowerCase());
  else expect(shown).toMatch(text);
  const box = (await value.boundingBox())!;
  const width = page.viewportSize()!.width;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  const cut = await value.evaluate((node) =>
    [node, ...node.querySelectorAll('*')].some(
      (element) => element.scrollWidth > element.clientWidth + 1,
    ),
  );
  expect(cut).toBe(false);
}

/** The page never scrolls sideways. */
async function expectNoSideScroll(page: Page): Promise<void> {
  expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
}

/**
 * The dashboard on a phone (390 px) and in its own words, against the real service with its
 * worker: every figure of the imports, spreadsheet imports, delivery ledger, spreadsheet preview
 * and rejected rows visible without scrolling sideways; one not-found page for another account's
 * campaign; no upload form for a viewer; delivery and delivery attempt named consistently; the
 * attempt's next retry; the URL checked at its field; a refused file's progress cleared; the
 * audit log filtered. Screenshots go to test/browser/screenshots/ (`phone-*`).
 */
describe('The dashboard on a phone, and in its own words', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startBusyReceiver>>;
  let account: ReturnType<typeof givenEndpointOfNewAccount>;
  let viewer: { email: string };
  let otherCampaignId: number;
  let importId: string;
  let dir: string;
  const pages: WatchedPage[] = [];

  async function signedIn(
    who: { email: string },
    path: string,
    viewport: ViewportName = 'mobile',
  ): Promise<WatchedPage> {
    const watched = await openPage(browser, service.origin, viewport);
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    await watched.page.goto(`/dashboard${path}`);
    await submitSignIn(watched.page, who.email, PASSWORD);
    // Signed in once the form has gone: the page asked for is shown.
    await watched.page
      .getByRole('button', { name: 'Sign in', exact: true })
      .waitFor({ state: 'detached' });
    return watched;
  }

  beforeAll(async () => {
    service = await startDashboardService(LOCAL_DELIVERY_WATCHED);
    browser = await launchChromium();
    receiver = await startBusyReceiver();
    dir = await mkdtemp(join(tmpdir(), 'phone-'));
    const env = service.env;
    account = givenEndpointOfNewAccount(env, receiver.url, ['lead.created'], PASSWORD);
    viewer = givenUserOf(env, account.accountId, 'viewer', PASSWORD);
    const other = givenDashboardUser(env, 'admin', PASSWORD);
    otherCampaignId = cli(env, [
      'campaign',
      'create',
      '--account',
      String(other.accountId),
      '--name',
      'Not yours',
    ]).id as number;
    const { api_key: apiKey } = cli(env, [
      'api-key',
      'create',
      '--account',
      String(account.accountId),
      '--name',
      'CRM sync',
    ]) as { api_key: string };
    // Five leads: two imported, three rejected. Their two deliveries fail (503) and wait an hour.
    ({ import_id: importId } = await uploadLeads(service.origin, apiKey, account.campaignId, [
      { phone: '+14155550100', first_name: 'Ada' },
      { phone: '12345', first_name: 'Bad' },
      { phone: '+14155550101', email: 'not-an-email' },
      { first_name: 'Grace' },
      { phone: '+14155550102', first_name: 'Alan' },
    ]));
    await until('both deliveries’ first attempts', async () => {
      const [{ n }] = await queryDatabase<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_delivery
          WHERE endpoint_id = $1 AND status = 'pending' AND attempt_count = 1`,
        [account.endpointId],
      );
      return n === 2 ? true : undefined;
    });
    // Then an event while the endpoint is disabled: a skipped delivery.
    cli(env, ['endpoint', 'update', '--id', String(account.endpointId), '--disable']);
    cli(env, [
      'event',
      'emit',
      '--campaign',
      String(account.campaignId),
      '--type',
      'lead.created',
      '--data',
      JSON.stringify({ id: 1 }),
    ]);
  });
  afterEach(() => closeCheckedPages(pages));
  afterAll(async () => {
    await closeCheckedPages(pages);
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('at 390 px shows the spreadsheet preview’s check, then the finished import’s status badge whole', async () => {
    const file = join(dir, 'crm.csv');
    await writeFile(
      file,
      'Mobile,First Name,Last Name,E-mail\r\n+1 415-300-0001,Ada,Lovelace,ada@example.com\r\n55-1,Bad,Phone,bad@example.com\r\n+1 415-300-0002,Alan,Turing,alan@example.com\r\n',
    );
    const watched = await signedIn(account.admin, `/campaigns/${account.campaignId}/import`);
    const { page } = watched;
    await uploadSpreadsheet(page, file);

    const preview = page.getByRole('list', { name: 'Preview of the first rows' });
    const rejected = preview.getByRole('listitem').filter({ hasText: 'Row 3' });
    await rejected.waitFor();
    await expectOnScreen(page, cardValue(rejected, 'Check'), /phone is not a valid phone number/);
    await expectOnScreen(page, cardValue(rejected, 'Phone'), '55-1');
    const accepted = preview.getByRole('listitem').filter({ hasText: 'Row 2' });
    await expectOnScreen(page, cardValue(accepted, 'Check'), 'OK');
    await expectOnScreen(page, cardValue(accepted, 'Phone'), '+14153000001');
    await expectNoSideScroll(page);
    await watched.screenshot('phone-spreadsheet-preview-mobile');

    await page.getByLabel(/I have permission to contact these people/).check();
    await page.getByRole('button', { name: /Start import of 3 rows/ }).click();
    await page.getByRole('heading', { name: 'Import report' }).waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Back to the campaign' }).click();
    const list = page.getByRole('list', { name: 'Spreadsheet imports' });
    const job = list.getByRole('listitem').filter({ hasText: 'crm.csv' });
    await job.waitFor();
    await expectOnScreen(page, cardValue(job, 'Status'), 'Done');
    await expectOnScreen(page, cardValue(job, 'New leads'), '2');
    await expectOnScreen(page, cardValue(job, 'Rejected'), '1');
    await expectNoSideScroll(page);
  });

  it('at 390 px shows every count of the imports and the rejected rows’ problems', async () => {
    const watched = await signedIn(viewer, `/campaigns/${account.campaignId}`);
    const { page } = watched;
    const imports = page.getByRole('list', { name: 'Imports' });
    const upload = imports.getByRole('listitem').filter({ hasText: 'CRM sync' });
    await upload.waitFor();
    await expectOnScreen(page, cardValue(upload, 'Rows read'), '5');
    await expectOnScreen(page, cardValue(upload, 'New leads'), '2');
    await expectOnScreen(page, cardValue(upload, 'Duplicates skipped'), '0');
    await expectOnScreen(page, cardValue(upload, 'Rejected'), '3');
    await expectNoSideScroll(page);
    await watched.screenshot('phone-imports-mobile');
    // What the page shows is what the import holds.
    const [stored] = await queryDatabase<Record<string, number>>(
      `SELECT received_count, valid_count, duplicate_count, invalid_count FROM lead_import
        WHERE id = $1`,
      [importId],
    );
    expect(stored).toEqual({
      received_count: 5,
      valid_count: 2,
      duplicate_count: 0,
      invalid_count: 3,
    });

    await page.goto(`/dashboard/imports/${importId}`);
    const rows = page.getByRole('list', { name: 'Rejected rows' });
    await rows.waitFor();
    expect(await rows.getByRole('listitem').count()).toBe(3);
    const first = rows.getByRole('listitem').first();
    await expectOnScreen(page, cardValue(first, 'Problem'), 'phone is not a valid phone number');
    // A viewer reads a rejected row's phone masked, its last two digits kept (docs/privacy.md).
    await expectOnScreen(page, cardValue(first, 'Phone'), '•••45');
    const third = rows.getByRole('listitem').nth(2);
    await expectOnScreen(page, cardValue(third, 'Problem'), 'phone is required');
    await page.getByText('Rows count from 0, in the order the leads were sent.').waitFor();
    await expectNoSideScroll(page);
    await watched.screenshot('phone-rejected-rows-mobile');

    // A chunk of the spreadsheet import numbers its rejected rows by file row, and says so.
    const [chunk] = await queryDatabase<{ id: string }>(
      'SELECT id FROM lead_import WHERE campaign_id = $1 AND spreadsheet_import_id IS NOT NULL',
      [account.campaignId],
    );
    await page.goto(`/dashboard/imports/${chunk.id}`);
    const chunkRows = page.getByRole('list', { name: 'Rejected rows' });
    await expectOnScreen(page, chunkRows.getByRole('listitem').first().getByText('Row 3'), 'Row 3');
    await page
      .getByText('Rows are numbered as in the spreadsheet, its header being row 1.')
      .waitFor();
    expect(await page.getByText(/count from 0/).count()).toBe(0);
  });

  it('at 390 px shows every count of the delivery ledger, with delivery attempts named as such', async () => {
    const watched = await signedIn(viewer, `/endpoints/${account.endpointId}`);
    const { page } = watched;
    const ledger = page.getByRole('list', { name: 'Delivery ledger' });
    await ledger.waitFor();
    const today = ledger.getByRole('listitem').first();
    const ledgerPath = `/dashboard/api/endpoints/${account.endpointId}/ledger?days=7`;
    const { days } = (await page.evaluate(
      `fetch(${JSON.stringify(ledgerPath)}).then((answer) => answer.json())`,
    )) as { days: Array<Record<string, number | string>> };
    const expected = days[0];
    // Two pending (their first attempt failed); skipped: every event since it was disabled.
    expect(expected.pending).toBe(2);
    expect(expected.skipped).toBeGreaterThan(0);
    await expectOnScreen(page, today.getByText(String(expected.day)), String(expected.day));
    for (const [label, key] of [
      ['Matched', 'matched'],
      ['Delivered', 'delivered'],
      ['Failed', 'failed'],
      ['Pending', 'pending'],
      ['Of which throttled', 'throttled'],
      ['Skipped', 'skipped'],
      ['Filtered out', 'filtered'],
    ]) {
      await expectOnScreen(page, cardValue(today, label), String(expected[key]));
    }
    await expectNoSideScroll(page);
    await watched.screenshot('phone-ledger-mobile');

    // Health counts delivery attempts (two, both failed); the ledger counts deliveries (three).
    const health = page.getByTestId('health');
    await health.getByText('Delivery attempts', { exact: true }).waitFor();
    expect(await health.getByText('Deliveries', { exact: true }).count()).toBe(0);
    expect(await health.innerText()).toMatch(/Delivery attempts\s+2\b/i);
    await page.getByText('Last attempt failed').waitFor();

    // The attempt's delivery is pending: the drawer says when it is retried next.
    await page
      .getByRole('button', { name: /^Open attempt / })
      .first()
      .click();
    const drawer = page.getByRole('dialog');
    const state = drawer.getByTestId('delivery-state');
    await state.getByText(/^Next retry /).waitFor();
    // The newest attempt's: one of the two pending deliveries' next attempt, to the millisecond.
    const due = await queryDatabase<{ next_attempt_at: Date }>(
      `SELECT next_attempt_at FROM webhook_delivery WHERE endpoint_id = $1 AND status = 'pending'`,
      [account.endpointId],
    );
    expect(due.map((row) => row.next_attempt_at.toISOString())).toContain(
      await state.locator('time').getAttribute('datetime'),
    );
    // The response's headers as the receiver sent them, readable without scrolling sideways.
    const responseHeaders = drawer.getByRole('table', { name: 'Response headers' });
    await expectOnScreen(
      page,
      responseHeaders.getByRole('row', { name: /x-receiver-state/ }),
      /^x-receiver-state\s+draining$/,
    );
    await watched.screenshot('phone-attempt-mobile');
  });

  it('shows one not-found page, with no action, for another account’s campaign and for none', async () => {
    const watched = await signedIn(account.admin, `/campaigns/${otherCampaignId}`, 'desktop');
    const { page } = watched;
    for (const id of [otherCampaignId, 999_999]) {
      await page.goto(`/dashboard/campaigns/${id}`);
      await page.getByRole('heading', { name: 'Campaign not found', level: 1 }).waitFor();
      for (const name of ['Add endpoint', 'Delivery charts', 'Import a spreadsheet']) {
        expect(await page.getByRole('link', { name }).count()).toBe(0);
      }
      expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
      expect(await page.getByText('This page could not be loaded').count()).toBe(0);
      expect(await page.getByText(`Campaign ${id}`).count()).toBe(0);
      await page.getByRole('link', { name: 'Go to your campaigns' }).waitFor();
    }
    await watched.screenshot('phone-campaign-not-found-desktop');
  });

  it('gives a viewer who opens the spreadsheet import URL no upload form', async () => {
    const watched = await signedIn(viewer, `/campaigns/${account.campaignId}/import`);
    const { page } = watched;
    await page.getByRole('heading', { name: 'Only an admin can import a spreadsheet' }).waitFor();
    expect(await page.getByRole('button', { name: 'Spreadsheet file' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Upload file' }).count()).toBe(0);
    await expectNoSideScroll(page);
  });

  it('clears the upload progress of a refused file, leaving only why', async () => {
    const file = join(dir, 'headers-only.csv');
    await writeFile(file, 'Mobile,First Name\r\n');
    const watched = await signedIn(account.admin, `/campaigns/${account.campaignId}/import`);
    watched.expectFailure(
      422,
      `/dashboard/api/campaigns/${account.campaignId}/spreadsheet-imports`,
    );
    const { page } = watched;
    await uploadSpreadsheet(page, file);
    await page.getByText('The file was not taken').waitFor();
    expect(await page.getByText(/Uploading…|Uploaded; reading/).count()).toBe(0);
    expect(await page.getByRole('progressbar', { name: 'Upload progress' }).count()).toBe(0);
  });

  it('checks an endpoint URL at its field, in the browser, before sending anything', async () => {
    const watched = await signedIn(
      account.admin,
      `/campaigns/${account.campaignId}/endpoints/new`,
      'desktop',
    );
    const { page } = watched;
    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/endpoints')) posted += 1;
    });
    await page.getByRole('checkbox', { name: 'lead.created', exact: true }).check();
    const url = page.getByLabel('URL', { exact: true });
    await url.fill('localhost');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await url.getAttribute('aria-describedby')) ?? '';
    const said = (
      await Promise.all(
        describedBy
          .split(' ')
          .filter(Boolean)
          .map((id) => page.locator(`[id="${id}"]`).innerText()),
      )
    ).join(' ');
    expect(said).toContain('Enter a whole URL, starting with https://');
    expect(await page.getByRole('alert').filter({ hasText: 'was not saved' }).count()).toBe(0);
    expect(posted).toBe(0);
    await watched.screenshot('phone-endpoint-url-error-desktop');
  });

  it('at 390 px fits the endpoint form’s custom header rows, every control found by its label', async () => {
    const watched = await signedIn(account.admin, `/campaigns/${account.campaignId}/endpoints/new`);
    const { page } = watched;
    await page.getByLabel('URL', { exact: true }).waitFor();
    for (const n of [1, 2]) {
      await page.getByRole('button', { name: 'Add header' }).click();
      await page.getByLabel(`Header ${n} name`).fill(n === 1 ? 'X-Tenant' : 'Authorization');
      await page.getByLabel(`Header ${n} value`).fill(`value-${n}-${'x'.repeat(40)}`);
    }
    await page.getByLabel('Header 2 secret').check();
    for (const label of ['Header 2 name', 'Header 2 value', 'Header 2 secret', 'Remove header 2']) {
      const control = page.getByLabel(label, { exact: true });
      await control.scrollIntoViewIfNeeded();
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
    }
    await expectNoSideScroll(page);
    await watched.screenshot('phone-endpoint-headers-mobile');
  });

  it('at 390 px shows the endpoint form’s throttle fields, labelled, and says a bad limit at its field before sending anything', async () => {
    const watched = await signedIn(account.admin, `/campaigns/${account.campaignId}/endpoints/new`);
    const { page } = watched;
    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/endpoints')) posted += 1;
    });
    await page.getByLabel('URL', { exact: true }).fill('https://crm.example.com/hooks');
    await page.getByRole('checkbox', { name: 'lead.created', exact: true }).check();
    const rate = page.getByRole('textbox', { name: 'Max deliveries per second' });
    const inFlight = page.getByRole('textbox', { name: 'Max in flight' });
    for (const field of [rate, inFlight]) {
      await field.scrollIntoViewIfNeeded();
      const box = (await field.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await rate.fill('2000');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    expect(await rate.getAttribute('aria-invalid')).toBe('true');
    await expectOnScreen(
      page,
      page.getByText('Enter a whole number of deliveries per second from 1 to 1,000', {
        exact: false,
      }),
      /^Enter a whole number of deliveries per second from 1 to 1,000/,
    );
    await expectNoSideScroll(page);
    expect(posted).toBe(0);
    await watched.screenshot('phone-endpoint-throttle-mobile');
  });

  it('filters the audit log by action and by user', async () => {
    const watched = await signedIn(account.admin, '/audit-log', 'desktop');
    const { page } = watched;
    const log = page.getByRole('table', { name: 'Audit log' });
    await log.waitFor();
    await page.getByLabel('Action').selectOption('import.start');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await until('the filtered log', async () => {
      const actions = await log.locator('code').allInnerTexts();
      return actions.length > 0 && actions.every((a) => a === 'import.start') ? true : undefined;
    });
    await page.getByLabel('Action').selectOption('');
    await page.getByLabel(/^User/).fill(viewer.email.toUpperCase());
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await until('the viewer’s entries', async () => {
      const who = await log.getByTestId('audit-row').allInnerTexts();
      return who.length > 0 && who.every((row) => row.includes(viewer.email)) ? true : undefined;
    });
    const stored = await queryDatabase<{ action: string }>(
      `SELECT action FROM audit_log_entry WHERE account_id = $1 AND lower(actor_email) = lower($2)`,
      [account.accountId, viewer.email],
    );
    expect(await log.getByTestId('audit-row').count()).toBe(stored.length);
    await watched.screenshot('phone-audit-filtered-desktop');
  });
});
