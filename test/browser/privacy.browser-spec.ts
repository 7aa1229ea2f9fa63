import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  closeCheckedPages,
  expectNoSideScroll,
  launchChromium,
  openPage,
  signedInPage,
  submitSignIn,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import { uploadLeads } from './support/public-api';
import { cli, givenUserOf, startDashboardService, type DashboardService } from './support/service';

/**
 * The Privacy page in a browser (docs/dashboard.md#privacy), against the real service: an admin
 * erases a person after confirming, sees the receipt in the list, adds and removes a suppression
 * and imports a small CSV; at phone width the page does not scroll sideways; a viewer finds no
 * Privacy link and is told the page is for admins. Screenshots go to test/browser/screenshots/.
 */
describe('The Privacy page in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  const ALICE = { phone: '+14155550199', email: 'alice.browser@example.com' };
  let service: DashboardService;
  let browser: Browser;
  let accountId: number;
  let campaignId: number;
  let admin: { email: string };
  let viewer: { email: string };
  const pages: WatchedPage[] = [];

  const leadsOf = async (phone: string) =>
    (
      await queryDatabase<{ n: number }>(
        'SELECT count(*)::int AS n FROM lead WHERE campaign_id = $1 AND phone = $2',
        [campaignId, phone],
      )
    )[0].n;
  const suppressed = async () =>
    (
      await queryDatabase<{ n: number }>(
        'SELECT count(*)::int AS n FROM suppression_entry WHERE account_id = $1',
        [accountId],
      )
    )[0].n;

  async function openPrivacy(page: Page): Promise<void> {
    const menu = page.getByRole('button', { name: 'Open the menu' });
    if (await menu.isVisible()) await menu.click();
    await page.getByRole('link', { name: 'Privacy', exact: true }).click();
    await page.getByRole('heading', { name: 'Privacy', level: 1 }).waitFor();
    await page.getByTestId('suppression-count').getByText(/entr/).waitFor();
  }

  beforeAll(async () => {
    service = await startDashboardService();
    browser = await launchChromium();
    accountId = cli(service.env, ['account', 'create', '--name', `Privacy ${process.pid}`])
      .id as number;
    campaignId = cli(service.env, [
      ...['campaign', 'create', '--account', String(accountId)],
      ...['--name', 'Winter launch', '--region', 'US'],
    ]).id as number;
    admin = givenUserOf(service.env, accountId, 'admin', PASSWORD);
    viewer = givenUserOf(service.env, accountId, 'viewer', PASSWORD);
    const apiKey = cli(service.env, ['api-key', 'create', '--account', String(accountId)])
      .api_key as string;
    await uploadLeads(service.origin, apiKey, campaignId, [
      { phone: ALICE.phone, email: ALICE.email, first_name: 'Alice' },
      { phone: '+14155550142', email: 'bob.kept@example.com', first_name: 'Bob' },
    ]);
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('erases a person after a confirmation, lists the receipt, and manages the suppression list', async () => {
    const watched = await signedInPage(browser, service.origin, pages, admin.email, PASSWORD);
    const { page } = watched;
    await openPrivacy(page);
    expect(await page.title()).toBe('Privacy · Campaign API dashboard');
    await page.getByText('No erasures yet').waitFor();
    expect(await page.getByTestId('suppression-count').innerText()).toBe('0 entries');
    console.log(`screenshot: ${await watched.screenshot('privacy-empty-desktop')}`);

    const form = page.getByRole('region', { name: 'Erase a person' });
    await form.getByLabel('Phone', { exact: true }).fill(ALICE.phone);
    await form.getByLabel('Email', { exact: true }).fill(ALICE.email);
    expect(await form.getByLabel('Campaign').inputValue()).toBe('');
    expect(await form.getByLabel('Add to the suppression list').isChecked()).toBe(true);
    await form.getByRole('button', { name: 'Erase…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase this person?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('every campaign of the account');
    expect(await leadsOf(ALICE.phone)).toBe(1); // nothing erased before the confirmation
    console.log(
      `screenshot: ${await watched.screenshot('privacy-confirm-desktop', { fullPage: false })}`,
    );
    await dialog.getByRole('button', { name: 'Erase permanently' }).click();

    const result = page.getByTestId('erasure-result');
    await result.waitFor();
    expect(await result.getByTestId('count-leads').innerText()).toBe('1');
    expect(await result.getByTestId('count-suppression_entries').innerText()).toBe('2');
    expect(await leadsOf(ALICE.phone)).toBe(0);
    expect(await leadsOf('+14155550142')).toBe(1);
    const row = page.getByTestId('erasure-receipt-row');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.innerText()).toContain(admin.email);
    expect(await row.innerText()).toContain('1 lead deleted');
    await page.getByTestId('suppression-count').getByText('2 entries').waitFor();
    expect(await page.content()).not.toContain(ALICE.email);

    // One person added, then removed.
    await page.getByLabel('Email to add').fill('carol.browser@example.com');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.getByTestId('suppression-add-result').getByText('Added 1 entry.').waitFor();
    await page.getByTestId('suppression-count').getByText('3 entries').waitFor();
    await page.getByLabel('Email to remove').fill('carol.browser@example.com');
    await page.getByRole('button', { name: 'Remove from the list' }).click();
    await page.getByTestId('suppression-remove-result').getByText('Removed 1 entry.').waitFor();
    await page.getByTestId('suppression-count').getByText('2 entries').waitFor();

    // A small CSV: a header, a formula cell, a phone and an email.
    const dir = mkdtempSync(join(tmpdir(), 'privacy-'));
    const csv = join(dir, 'do-not-contact.csv');
    writeFileSync(csv, 'contact\r\n=HYPERLINK("http://x")\r\n+14155550123\r\ndave@example.com\r\n');
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Suppression CSV' }).click(),
    ]);
    await chooser.setFiles(csv);
    await page.getByRole('button', { name: 'Upload CSV' }).click();
    const imported = page.getByTestId('suppression-import-result');
    await imported.waitFor();
    const text = await imported.innerText();
    expect(text).toContain('2 entries added');
    expect(text).toContain('1 cell skipped');
    expect(text).toContain('1 formula cell refused');
    await page.getByTestId('suppression-count').getByText('4 entries').waitFor();
    expect(await suppressed()).toBe(4);
    await expectNoSideScroll(page);
    console.log(`screenshot: ${await watched.screenshot('privacy-done-desktop')}`);
  });

  it('fits a phone’s width: no sideways scrolling, receipts as cards', async () => {
    const watched = await openPage(browser, service.origin, 'mobile');
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    const { page } = watched;
    await page.goto('/dashboard/');
    await submitSignIn(page, admin.email, PASSWORD);
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    await openPrivacy(page);
    await page.getByTestId('erasure-receipt-row').first().waitFor();
    await expectNoSideScroll(page);
    console.log(`screenshot: ${await watched.screenshot('privacy-mobile')}`);

    await page
      .getByRole('region', { name: 'Erase a person' })
      .getByLabel('Phone', { exact: true })
      .fill('+14155550142');
    await page.getByRole('button', { name: 'Erase…' }).click();
    await page.getByRole('dialog', { name: 'Erase this person?' }).waitFor();
    await expectNoSideScroll(page);
    console.log(
      `screenshot: ${await watched.screenshot('privacy-confirm-mobile', { fullPage: false })}`,
    );
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await leadsOf('+14155550142')).toBe(1);
  });

  it('shows a viewer no Privacy link, and “Admins only” at its address', async () => {
    const watched = await signedInPage(browser, service.origin, pages, viewer.email, PASSWORD);
    const { page } = watched;
    expect(await page.getByRole('link', { name: 'Privacy', exact: true }).count()).toBe(0);
    await page.goto('/dashboard/privacy');
    await page.getByTestId('privacy-admins-only').getByText('Admins only').waitFor();
    expect(await page.getByRole('button', { name: 'Erase…' }).count()).toBe(0);
    console.log(`screenshot: ${await watched.screenshot('privacy-viewer-desktop')}`);
  });
});
