import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import {
  closeCheckedPages,
  launchChromium,
  openPage,
  signedInPage,
  submitSignIn,
  type WatchedPage,
} from './support/browser';
import { brokenWords, lineCount } from './support/geometry';
import { cli, givenUserOf, startDashboardService, type DashboardService } from './support/service';

/** A receiver answering every request with `status`; counts what it got. */
async function startReceiver(
  status: number,
): Promise<{ server: Server; url: string; count: () => number }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(status);
      response.end(status >= 400 ? 'down for maintenance' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, count: () => received };
}

/**
 * The lead search and a lead's page (docs/dashboard.md#leads) in a browser, against the real
 * service and worker delivering to two local receivers (one answers 204, one 500): search by
 * phone in a national format and by name, open the lead, see its import and its deliveries
 * (`lead.created` and a later `lead.status_changed`) with each attempt's outcome, at 1280 px and
 * at a phone's 390 px. Screenshots go to test/browser/screenshots/.
 */
describe('Lead search and a lead’s page in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let ok: Awaited<ReturnType<typeof startReceiver>>;
  let failing: Awaited<ReturnType<typeof startReceiver>>;
  let campaignId: number;
  let viewer: { email: string };
  let admin: { email: string };
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    ok = await startReceiver(204);
    failing = await startReceiver(500);
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1h',
    });
    browser = await launchChromium();
    const env = service.env;
    const accountId = cli(env, ['account', 'create', '--name', `Browser leads ${process.pid}`])
      .id as number;
    campaignId = cli(env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Spring open house',
    ]).id as number;
    for (const url of [ok.url, failing.url]) {
      cli(env, [
        'endpoint',
        'create',
        '--campaign',
        String(campaignId),
        '--url',
        url,
        '--events',
        'lead.created,lead.status_changed',
      ]);
    }
    const apiKey = cli(env, [
      'api-key',
      'create',
      '--account',
      String(accountId),
      '--name',
      'CRM sync',
    ]).api_key as string;
    viewer = givenUserOf(env, accountId, 'viewer', PASSWORD);
    admin = givenUserOf(env, accountId, 'admin', PASSWORD);

    const token = (
      (await (
        await fetch(`${service.origin}/api/v1/auth/api-key/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: apiKey }),
        })
      ).json()) as { access_token: string }
    ).access_token;
    const uploaded = await fetch(`${service.origin}/api/v1/leads/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        campaign_id: campaignId,
        compliance_acknowledged: true,
        source: 'open-house',
        tags: ['spring', 'walk-in'],
        leads: [
          {
            phone: '(415) 555-0100',
            first_name: 'Ada',
            last_name: 'Lovelace',
            email: 'ada.lovelace@example.com',
            company: 'Analytical Engines Ltd',
            title: 'Head of Computation',
          },
          { phone: '415-555-0101', first_name: 'Alan', last_name: 'Turing' },
          { phone: '415 555 0102', first_name: 'Ada', last_name: 'Byron' },
        ],
      }),
    });
    expect(uploaded.status).toBe(202);
    // A later event about Ada Lovelace, as another part of the platform would record it.
    const db = new pg.Client({ connectionString: env.DATABASE_URL ?? process.env.DATABASE_URL });
    await db.connect();
    const [{ id: leadId }] = (
      await db.query(
        `SELECT id::int AS id FROM lead WHERE phone = '+14155550100' AND campaign_id = $1`,
        [campaignId],
      )
    ).rows as Array<{ id: number }>;
    await db.end();
    cli(env, [
      'event',
      'emit',
      '--campaign',
      String(campaignId),
      '--type',
      'lead.status_changed',
      '--data',
      JSON.stringify({ lead_id: leadId, campaign_id: campaignId, status: 'contacted' }),
    ]);
    const deadline = Date.now() + 20_000;
    while (ok.count() < 4 || failing.count() < 4) {
      if (Date.now() > deadline) throw new Error('the deliveries did not all arrive');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => ok?.server.close(resolve));
    await new Promise((resolve) => failing?.server.close(resolve));
  });

  it('finds a lead by its phone in a national format and shows its import and deliveries', async () => {
    const watched = await signedInPage(browser, service.origin, pages, viewer.email, PASSWORD);
    const { page } = watched;
    await page.goto(`/dashboard/campaigns/${campaignId}`);
    await page.getByRole('heading', { name: 'Leads', level: 2 }).waitFor();
    // The upload's tags as stored (lower case), not upper-cased by the badge.
    const tags = page.locator('.mantine-Badge-root', { hasText: /^(spring|walk-in)$/i });
    await tags.first().waitFor();
    expect(await tags.allInnerTexts()).toEqual(['spring', 'walk-in']);
    await page.getByRole('textbox', { name: 'Search leads' }).fill('(415) 555-0100');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('1 lead with the phone +14155550100').waitFor();
    const results = page.getByTestId('lead-row');
    expect(await results.count()).toBe(1);
    // A viewer finds the lead by its full phone but reads it masked (docs/privacy.md).
    await results.first().getByText('+1 415 ••• ••00', { exact: true }).waitFor();
    expect(await results.first().getByText('+14155550100').count()).toBe(0);
    console.log(`screenshot: ${await watched.screenshot('leads-search-phone-desktop')}`);

    await page.getByRole('link', { name: 'Ada Lovelace' }).click();
    await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
    const record = page.getByRole('region', { name: 'Import' });
    await record.getByText('3 rows read: 3 new leads, 0 duplicates skipped, 0 rejected').waitFor();
    await record.getByText('CRM sync').waitFor();
    const deliveries = page.getByTestId('lead-delivery');
    await deliveries.nth(3).waitFor();
    expect(await deliveries.count()).toBe(4);
    const texts = await deliveries.allInnerTexts();
    expect(texts.map((text) => text.split('\n')[0])).toEqual([
      'lead.status_changed',
      'lead.status_changed',
      'lead.created',
      'lead.created',
    ]);
    const attempts = page.getByTestId('lead-attempt');
    expect(await attempts.filter({ hasText: 'Succeeded' }).count()).toBe(2);
    expect(await attempts.filter({ hasText: 'Failed' }).count()).toBe(2);
    await page.getByText(/kept 30 days/).waitFor();
    console.log(`screenshot: ${await watched.screenshot('lead-page-desktop')}`);
  });

  it('fits a phone: a name search stacks its results, and the lead’s page does not scroll sideways', async () => {
    const watched = await openPage(browser, service.origin, 'mobile');
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    const { page } = watched;
    await page.goto(`/dashboard/campaigns/${campaignId}`);
    // An admin, who reads phones in full: the longest unbroken text a card holds.
    await submitSignIn(page, admin.email, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 2 }).waitFor();
    await page.getByRole('textbox', { name: 'Search leads' }).fill('ada');
    await page.getByRole('combobox', { name: 'Search by' }).selectOption('name');
    await page.getByRole('textbox', { name: 'Search leads' }).press('Enter');
    await page.getByText('2 leads with names starting with “ada”').waitFor();
    const overflow = () =>
      page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    // Each card's phone on one line, never "+1415555010 / 0"; a company wraps between words.
    const cards = page.getByTestId('lead-row');
    for (const card of await cards.all()) {
      const phone = card.locator('dd', { hasText: /^\+1415555010\d$/ });
      expect(await lineCount(phone)).toBe(1);
    }
    const company = cards.locator('dd', { hasText: 'Analytical Engines Ltd' });
    expect(await brokenWords(company)).toEqual([]);
    await page.getByRole('link', { name: 'Ada Byron' }).scrollIntoViewIfNeeded();
    console.log(`screenshot: ${await watched.screenshot('leads-search-name-mobile')}`);

    await page.getByRole('link', { name: 'Ada Lovelace' }).click();
    await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
    await page.getByTestId('lead-delivery').nth(3).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    const fields = page.getByRole('region', { name: 'Lead', exact: true });
    expect(await lineCount(fields.getByText('+14155550100', { exact: true }))).toBe(1);
    expect(await brokenWords(fields.getByText('Head of Computation', { exact: true }))).toEqual([]);
    // Each delivery's webhook-id on one line, the whole id in its title.
    for (const id of await page.getByTestId('lead-delivery').locator('code').all()) {
      expect(await lineCount(id)).toBe(1);
    }
    console.log(`screenshot: ${await watched.screenshot('lead-page-mobile')}`);
  });
});
