import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import {
  chooseSpreadsheet,
  closeCheckedPages,
  launchChromium,
  openPage,
  signedInPage,
  submitSignIn,
  uploadSpreadsheet,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import {
  givenEndpointOfNewAccount,
  startDashboardService,
  type DashboardService,
} from './support/service';

/** A CRM export: `rows` leads under the CRM's own headers; rows 3, 53, 103… have a broken phone. */
function crmExport(rows: number, offset: number): string {
  const lines = ['Mobile,First Name,Last Name,E-mail,Company Name,Owner'];
  for (let i = 0; i < rows; i++) {
    const n = offset + i;
    const phone =
      i % 50 === 1 ? `55-${n}` : `+1 (415) ${String(2_000_000 + n).replace(/^(\d{3})/, '$1-')}`;
    lines.push(`${phone},Ada${n},Lovelace,ada${n}@example.com,Engines Ltd,sales`);
  }
  return lines.join('\r\n') + '\r\n';
}

/**
 * Spreadsheet import in a browser (docs/dashboard.md#spreadsheet-imports), against the real
 * service with its worker: a CRM export picked from disk and uploaded, its columns matched to
 * lead fields, the preview with a rejected row, the compliance acknowledgement, live progress to
 * the report, the rejected rows downloaded; a second import cancelled while it runs; the
 * mapping step at phone width. Screenshots go to test/browser/screenshots/.
 */
describe('Spreadsheet import in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let account: ReturnType<typeof givenEndpointOfNewAccount>;
  let dir: string;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    service = await startDashboardService({ RUN_WORKER: 'true' });
    browser = await launchChromium();
    account = givenEndpointOfNewAccount(
      service.env,
      'https://hooks.example.com/leads',
      ['lead.created'],
      PASSWORD,
    );
    dir = await mkdtemp(join(tmpdir(), 'spreadsheet-'));
  });

  /** The admin, signed in, on the campaign's "Import a spreadsheet" page at 1280 or 390 px. */
  async function atImportPage(viewport: 'desktop' | 'mobile'): Promise<WatchedPage> {
    const importPage = `/dashboard/campaigns/${account.campaignId}/import`;
    if (viewport === 'desktop') {
      const watched = await signedInPage(
        browser,
        service.origin,
        pages,
        account.admin.email,
        PASSWORD,
      );
      await watched.page.goto(importPage);
      return watched;
    }
    const watched = await openPage(browser, service.origin, 'mobile');
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    await watched.page.goto(importPage);
    await submitSignIn(watched.page, account.admin.email, PASSWORD);
    return watched;
  }
  afterEach(() => closeCheckedPages(pages));
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('uploads a CRM export, maps and previews it, imports it with live progress, and downloads the rejected rows', async () => {
    const file = join(dir, 'crm-export.csv');
    const rows = 25_000;
    await writeFile(file, crmExport(rows, 0));
    const watched = await signedInPage(
      browser,
      service.origin,
      pages,
      account.admin.email,
      PASSWORD,
    );
    const { page } = watched;
    await page.getByRole('link', { name: 'Winter launch' }).click();
    await page.getByRole('link', { name: 'Import a spreadsheet' }).click();
    await page.getByRole('heading', { name: 'Import a spreadsheet', level: 1 }).waitFor();
    await chooseSpreadsheet(page, file);
    await watched.screenshot('spreadsheet-upload-desktop');
    await page.getByRole('button', { name: 'Upload file' }).click();

    await page.getByRole('heading', { name: 'Map columns to lead fields' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Phone' }).inputValue()).toBe('A · Mobile');
    expect(await page.getByRole('combobox', { name: 'Email', exact: true }).inputValue()).toBe(
      'D · E-mail',
    );
    expect(await page.getByRole('combobox', { name: 'Company', exact: true }).inputValue()).toBe(
      'E · Company Name',
    );
    expect(await page.getByRole('combobox', { name: 'Job title', exact: true }).inputValue()).toBe(
      '',
    );
    const preview = page.getByRole('table', { name: 'Preview of the first rows' });
    await preview.getByText('+14152000000').waitFor();
    await preview.getByText(/phone is not a valid phone number/).waitFor();
    expect(await preview.getByRole('row').count()).toBe(11);
    await watched.screenshot('spreadsheet-mapping-desktop');

    const start = page.getByRole('button', { name: /Start import of 25,000 rows/ });
    expect(await start.isDisabled()).toBe(true);
    await page.getByLabel(/I have permission to contact these people/).check();
    await start.click();
    await page.getByRole('progressbar', { name: 'Import progress' }).waitFor();
    await watched.screenshot('spreadsheet-progress-desktop');
    await page.getByRole('heading', { name: 'Import report' }).waitFor({ timeout: 60_000 });
    await page.getByText('25,000 of 25,000 rows (100 %)').waitFor();
    // Rows read = new leads + duplicates skipped + rejected.
    expect(await page.locator('main').innerText()).toMatch(
      /New leads\s+24,500\s+Duplicates skipped\s+0\s+Rejected\s+500/i,
    );
    await watched.screenshot('spreadsheet-report-desktop');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download rejected rows (CSV)' }).click(),
    ]);
    const csv = (await readFile((await download.path())!, 'utf8')).split('\r\n');
    expect(csv[0]).toBe('row,field,message,phone,email,first_name,last_name,company,title');
    expect(csv[1]).toMatch(
      /^3,phone,phone is not a valid phone number,'?55-1,ada1@example.com,Ada1,/,
    );
    expect(csv).toHaveLength(rows / 50 + 2);

    const [job] = await queryDatabase<Record<string, unknown>>(
      `SELECT status, rows_read, valid_count, invalid_count, next_chunk FROM spreadsheet_import
        WHERE campaign_id = $1`,
      [account.campaignId],
    );
    expect(job).toEqual({
      status: 'done',
      rows_read: rows,
      valid_count: rows - rows / 50,
      invalid_count: rows / 50,
      next_chunk: 3,
    });
    const [{ leads }] = await queryDatabase<{ leads: number }>(
      'SELECT count(*)::int AS leads FROM lead WHERE campaign_id = $1',
      [account.campaignId],
    );
    expect(leads).toBe(rows - rows / 50);

    await page.getByRole('link', { name: 'Back to the campaign' }).click();
    const list = page.getByRole('table', { name: 'Spreadsheet imports' });
    await list.getByRole('link', { name: 'crm-export.csv' }).waitFor();
    expect((await list.getByRole('columnheader').allInnerTexts()).slice(4)).toEqual([
      'New leads',
      'Duplicates skipped',
      'Rejected',
    ]);
    expect(
      (await list.getByRole('row').nth(1).getByRole('cell').allInnerTexts()).slice(-3),
    ).toEqual(['24,500', '0', '500']);
    await watched.screenshot('spreadsheet-campaign-desktop');
  });

  it('cancels an import while it runs; what was committed stays', async () => {
    const file = join(dir, 'big-export.csv');
    await writeFile(file, crmExport(60_000, 100_000));
    const watched = await atImportPage('desktop');
    const { page } = watched;
    await uploadSpreadsheet(page, file);
    await page.getByLabel(/I have permission to contact these people/).check();
    await page.getByRole('button', { name: /Start import of 60,000 rows/ }).click();
    await page.getByRole('button', { name: 'Cancel import' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel import' }).click();
    await page.getByText('Cancelled', { exact: true }).first().waitFor();
    await watched.screenshot('spreadsheet-cancelled-desktop');
    // The worker notices at its next chunk, whose transaction rolls back.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const [job] = await queryDatabase<{ id: string; status: string; rows_read: number }>(
      `SELECT id, status, rows_read FROM spreadsheet_import WHERE file_name = 'big-export.csv' AND campaign_id = $1`,
      [account.campaignId],
    );
    expect(job.status).toBe('cancelled');
    expect(job.rows_read).toBeLessThan(60_000);
    const [{ received }] = await queryDatabase<{ received: number }>(
      `SELECT coalesce(sum(received_count), 0)::int AS received FROM lead_import WHERE spreadsheet_import_id = $1`,
      [job.id],
    );
    expect(received).toBe(job.rows_read);
  });

  it('fits a phone: the mapping step, and the preview as cards, never scroll the page sideways', async () => {
    const file = join(dir, 'small.csv');
    await writeFile(file, crmExport(30, 300_000));
    const watched = await atImportPage('mobile');
    const { page } = watched;
    await uploadSpreadsheet(page, file);
    await page
      .getByRole('list', { name: 'Preview of the first rows' })
      .getByText('+14152300000')
      .waitFor();
    expect(
      await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await watched.screenshot('spreadsheet-mapping-mobile');
  });
  /** The lines a piece of text takes on the page: 1 when it never breaks. */
  const linesOf = (element: import('playwright-core').Locator): Promise<number> =>
    element.evaluate((node) => {
      const range = node.ownerDocument.createRange();
      range.selectNodeContents(node);
      const tops = Array.from(range.getClientRects(), (rect) =>
        Math.round((rect as { top: number }).top),
      );
      return new Set(tops).size;
    });
  const box = async (element: import('playwright-core').Locator) => (await element.boundingBox())!;
  const overlaps = (
    a: { x: number; y: number; width: number; height: number },
    b: { x: number; y: number; width: number; height: number },
  ) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

  it('fits a phone: import cards, the preview’s phones and the rejected rows stay in their boxes, with labels and readable figures', async () => {
    const file = join(dir, 'phone-width.csv');
    const lines = ['Mobile,First Name,E-mail'];
    for (let i = 0; i < 29; i++)
      lines.push(`+1 (415) 240-${String(1000 + i)},Ada${i},ada${i}@example.com`);
    // A rejected row (its phone) with a long unbroken first name.
    lines.push(`12,${'B'.repeat(120)},bo@example.com`);
    await writeFile(file, lines.join('\r\n') + '\r\n');
    const watched = await atImportPage('mobile');
    const { page } = watched;
    await chooseSpreadsheet(page, file);
    // A 1.4 KiB file is not "0.0 MiB".
    await page.getByText(/^phone-width\.csv, 1\.\d KiB$/).waitFor();
    await page.getByRole('button', { name: 'Upload file' }).click();
    await page.getByText(/^CSV, 1\.\d KiB, 30 rows, uploaded by /).waitFor();

    // The preview's phones each on one line.
    const preview = page.getByRole('list', { name: 'Preview of the first rows' });
    await preview.getByText('+14152401000').waitFor();
    for (const phone of ['+14152401000', '+14152401009']) {
      expect(await linesOf(preview.getByText(phone))).toBe(1);
    }
    await watched.screenshot('spreadsheet-preview-phones-mobile');

    // The campaign's list as cards: the badge clear of the progress, the bar inside its card.
    await page.goto(`/dashboard/campaigns/${account.campaignId}`);
    const cards = page.getByRole('list', { name: 'Spreadsheet imports' });
    const card = cards.getByRole('listitem').filter({ hasText: 'phone-width.csv' });
    const badge = card.getByText('Waiting for mapping');
    const rows = card.getByText('0 / 30 rows');
    await rows.waitFor();
    expect(overlaps(await box(badge), await box(rows))).toBe(false);
    const bar = await box(card.getByRole('progressbar'));
    const edge = await box(card);
    expect(bar.x + bar.width).toBeLessThanOrEqual(edge.x + edge.width);
    expect(await card.getByText(/^Discarded after .+ unless started$/).isVisible()).toBe(true);
    expect(
      await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await watched.screenshot('spreadsheet-cards-mobile');

    // Imported: the chunk's rejected row, its long name wrapped inside its own field.
    await card.getByRole('link', { name: 'phone-width.csv' }).click();
    await page.getByLabel(/I have permission to contact these people/).check();
    await page.getByRole('button', { name: 'Start import of 30 rows' }).click();
    await page.getByRole('heading', { name: 'Import report' }).waitFor({ timeout: 30_000 });
    const [chunk] = await queryDatabase<{ id: string }>(
      `SELECT i.id FROM lead_import i JOIN spreadsheet_import s ON s.id = i.spreadsheet_import_id
        WHERE s.file_name = 'phone-width.csv' AND s.campaign_id = $1`,
      [account.campaignId],
    );
    await page.goto(`/dashboard/imports/${chunk.id}`);
    const rejected = page.getByRole('list', { name: 'Rejected rows' });
    const name = rejected.getByText('B'.repeat(120));
    await name.waitFor();
    const field = name.locator('xpath=ancestor::dd[1]/..');
    expect(await field.locator('dt').innerText()).toMatch(/^first name$/i);
    const value = await box(name);
    const own = await box(field);
    expect(value.x + value.width).toBeLessThanOrEqual(own.x + own.width + 0.5);
    const next = await box(field.locator('xpath=following-sibling::div[1]'));
    expect(overlaps(value, next)).toBe(false);
    expect(await rejected.locator('dt').allInnerTexts()).toEqual(
      expect.arrayContaining(['PHONE', 'EMAIL', 'LAST NAME', 'JOB TITLE']),
    );
    expect(
      await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await watched.screenshot('spreadsheet-rejected-rows-mobile');
  });

  it('lets an admin discard an upload never started: gone from the list, with its file', async () => {
    const file = join(dir, 'abandoned.csv');
    await writeFile(file, crmExport(3, 400_000));
    const watched = await atImportPage('desktop');
    const { page } = watched;
    await uploadSpreadsheet(page, file);
    await page.getByText(/^Discarded after .+ unless started$/).waitFor();
    await watched.screenshot('spreadsheet-waiting-desktop');
    await page.getByRole('button', { name: 'Discard upload' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Discard upload' }).click();
    await page.getByRole('heading', { name: 'Spreadsheet imports' }).waitFor();
    expect(await page.getByRole('link', { name: 'abandoned.csv' }).count()).toBe(0);
    const rows = await queryDatabase<{ n: number }>(
      `SELECT count(*)::int AS n FROM spreadsheet_import WHERE file_name = 'abandoned.csv'`,
    );
    expect(rows).toEqual([{ n: 0 }]);
    await watched.screenshot('spreadsheet-discarded-desktop');
  });
});
