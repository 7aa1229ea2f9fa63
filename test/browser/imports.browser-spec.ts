import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import {
  closeCheckedPages,
  launchChromium,
  openPage,
  signedInPage,
  submitSignIn,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import { lineCount } from './support/geometry';
import { uploadLeads } from './support/public-api';
import {
  cli,
  givenEndpointOfNewAccount,
  startDashboardService,
  type DashboardService,
} from './support/service';

/**
 * Import history in a browser (docs/dashboard.md#imports), against the real service: an upload
 * with rejected rows through the public API, then its row in the campaign's imports, its page
 * with the compliance record and the rejected rows as submitted, and the CSV download with the
 * formula neutralised. At desktop and phone width; screenshots go to test/browser/screenshots/.
 */
describe('Import history in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let account: ReturnType<typeof givenEndpointOfNewAccount>;
  let importId: string;
  let key: string;
  const pages: WatchedPage[] = [];
  const FILE = [
    { phone: '+14155550100', first_name: 'Ada', last_name: 'Lovelace' },
    { phone: '12345', first_name: '=HYPERLINK("http://evil.example","click")' },
    { phone: '+14155550101', email: 'not-an-email', company: 'Acme' },
    { first_name: 'Grace', last_name: 'Hopper', title: '@admiral' },
    { phone: '+14155550102', first_name: 'Alan' },
  ];

  beforeAll(async () => {
    service = await startDashboardService();
    browser = await launchChromium();
    account = givenEndpointOfNewAccount(
      service.env,
      'https://hooks.example.com/leads',
      ['lead.created'],
      PASSWORD,
    );
    const { api_key: apiKey } = cli(service.env, [
      'api-key',
      'create',
      '--account',
      String(account.accountId),
      '--name',
      'CRM sync',
    ]) as { api_key: string };
    key = apiKey;
    ({ import_id: importId } = await uploadLeads(service.origin, apiKey, account.campaignId, FILE));
  });
  /** A desktop page signed in as the account's admin. */
  const signInAsAdmin = () =>
    signedInPage(browser, service.origin, pages, account.admin.email, PASSWORD);

  afterAll(async () => {
    await closeCheckedPages(pages);
    await browser?.close();
    await service?.stop();
  });

  it('lists the upload in the campaign, shows its compliance record and rejected rows, and downloads them as safe CSV', async () => {
    const watched = await signInAsAdmin();
    const { page } = watched;
    await page.getByRole('link', { name: 'Winter launch' }).click();
    const imports = page.getByRole('table', { name: 'Imports' });
    await imports.waitFor();
    const row = imports.getByRole('row').nth(1);
    expect(await row.innerText()).toMatch(/CRM sync[\s\S]*api[\s\S]*5\s+2\s+0\s+3/);
    await watched.screenshot('imports-campaign-desktop');

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor();
    await page.getByText('Compliance record').waitFor();
    const rejected = page.getByRole('table', { name: 'Rejected rows' });
    await rejected.waitFor();
    expect(await rejected.getByRole('row').count()).toBe(4);
    await rejected.getByText('=HYPERLINK("http://evil.example","click")').waitFor();
    await rejected.getByText('phone is required').waitFor();
    // Short values as submitted stay whole: a phone, a word, a handle.
    for (const value of ['+14155550101', 'not-an-email', '@admiral']) {
      expect(await lineCount(rejected.getByText(value, { exact: true }))).toBe(1);
    }
    await watched.screenshot('import-rejected-rows-desktop');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download rejected rows (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`import-${importId}-rejected.csv`);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.split('\r\n')).toEqual([
      'row,field,message,phone,email,first_name,last_name,company,title',
      `1,phone,phone is not a valid phone number,12345,,"'=HYPERLINK(""http://evil.example"",""click"")",,,`,
      `2,email,email is not a valid email address,'+14155550101,not-an-email,,,Acme,`,
      `3,phone,phone is required,,,Grace,Hopper,,'@admiral`,
      '',
    ]);
    // What the page and the file show is what the database keeps.
    const stored = await queryDatabase<{ row: number; field: string }>(
      'SELECT row, field FROM lead_import_rejection WHERE import_id = $1 ORDER BY row',
      [importId],
    );
    expect(stored).toEqual([
      { row: 1, field: 'phone' },
      { row: 2, field: 'email' },
      { row: 3, field: 'phone' },
    ]);
  });

  it('fits a phone: the tables become cards, and the page never scrolls sideways', async () => {
    const watched = await openPage(browser, service.origin, 'mobile');
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    const { page } = watched;
    await page.goto(`/dashboard/imports/${importId}`);
    await submitSignIn(page, account.admin.email, PASSWORD);
    await page.getByRole('list', { name: 'Rejected rows' }).waitFor();
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    const cards = page.getByRole('list', { name: 'Rejected rows' });
    expect(await lineCount(cards.getByText('+14155550101', { exact: true }))).toBe(1);
    await watched.screenshot('import-rejected-rows-mobile');
    await page.goto(`/dashboard/campaigns/${account.campaignId}`);
    await page.getByRole('list', { name: 'Imports' }).waitFor();
    expect(
      await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await watched.screenshot('imports-campaign-mobile');
  });

  it('shows a re-imported file as rows read, 0 new leads, duplicates skipped and rejected, on the list and the page', async () => {
    // The same file again: its two valid leads are duplicates now, skipped.
    const again = await uploadLeads(service.origin, key, account.campaignId, FILE);
    const watched = await signInAsAdmin();
    const { page } = watched;
    await page.goto(`/dashboard/campaigns/${account.campaignId}`);
    const imports = page.getByRole('table', { name: 'Imports' });
    await imports.waitFor();
    const headers = await imports.getByRole('columnheader').allInnerTexts();
    expect(headers.slice(3)).toEqual(['Rows read', 'New leads', 'Duplicates skipped', 'Rejected']);
    const cells = async (n: number) =>
      (await imports.getByRole('row').nth(n).getByRole('cell').allInnerTexts()).slice(-4);
    // Newest first: the re-import, then the first import. Each adds up to its rows read.
    expect(await cells(1)).toEqual(['5', '0', '2', '3']);
    expect(await cells(2)).toEqual(['5', '2', '0', '3']);
    await watched.screenshot('imports-reimport-desktop');

    await imports.getByRole('row').nth(1).getByRole('link').click();
    await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor();
    expect(page.url()).toContain(again.import_id);
    const record = page.getByText('Compliance record').locator('xpath=..');
    expect(await record.innerText()).toMatch(
      /Rows read\s+5\s+New leads\s+0\s+Duplicates skipped\s+2\s+Rejected\s+3/i,
    );
    // As the database keeps it: no lead from the re-import, its counts as the 202 answered.
    expect(
      await queryDatabase(
        `SELECT received_count, valid_count, duplicate_count, invalid_count,
                (SELECT count(*)::int FROM lead l WHERE l.import_id = i.id) AS leads
           FROM lead_import i WHERE id = $1`,
        [again.import_id],
      ),
    ).toEqual([
      { received_count: 5, valid_count: 2, duplicate_count: 2, invalid_count: 3, leads: 0 },
    ]);
    await watched.screenshot('import-reimport-page-desktop');

    // At phone width, the three numbers and the rows read are all there, nothing wider.
    const phone = await openPage(browser, service.origin, 'mobile');
    phone.expectFailure(401, '/dashboard/api/session');
    pages.push(phone);
    await phone.page.goto(`/dashboard/imports/${again.import_id}`);
    await submitSignIn(phone.page, account.admin.email, PASSWORD);
    const phoneRecord = phone.page.getByText('Compliance record').locator('xpath=..');
    await phoneRecord.waitFor();
    expect(await phoneRecord.innerText()).toMatch(
      /Rows read\s+5\s+New leads\s+0\s+Duplicates skipped\s+2\s+Rejected\s+3/i,
    );
    expect(
      await phone.page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await phone.screenshot('import-reimport-page-mobile');
  });
});
