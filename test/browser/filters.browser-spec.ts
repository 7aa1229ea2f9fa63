import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import {
  closeCheckedPages,
  launchChromium,
  openPage,
  submitSignIn,
  type ViewportName,
  type WatchedPage,
  until,
} from './support/browser';
import { overhang } from './support/geometry';
import { cli, givenUserOf, startDashboardService, type DashboardService } from './support/service';

/** A receiver on 127.0.0.1 answering 204, keeping each body. */
async function startReceiver(): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, bodies };
}

const FILTER = 'data.first_name.startsWith("A")';

/**
 * A payload filter in the dashboard (docs/dashboard.md#payload-filter-preview,
 * docs/webhooks.md#payload-filters): typed in the endpoint form's **Filter** editor, refused at
 * the field with its position, tried with **Try it** on the example and the campaign's recent
 * events (Match / No match, nothing sent), saved, and shown on the endpoint's page; at 1280 and
 * 390 px, with no console error.
 */
describe('Payload filters in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let campaignId: number;
  let admin: { email: string };
  let endpointId: number;
  const pages: WatchedPage[] = [];

  async function signedIn(viewport: ViewportName): Promise<WatchedPage> {
    const watched = await openPage(browser, service.origin, viewport);
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    await watched.page.goto('/dashboard/');
    await submitSignIn(watched.page, admin.email, PASSWORD);
    await watched.page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    return watched;
  }

  /** Replaces the Filter editor's text by typing, as a user would (select all, then type). */
  async function typeFilter(page: Page, text: string): Promise<void> {
    const editor = page.getByRole('textbox', { name: 'Filter' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.type(text);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    browser = await launchChromium();
    const env = service.env;
    const accountId = cli(env, ['account', 'create', '--name', `Browser filters ${process.pid}`])
      .id as number;
    campaignId = cli(env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Filtered fair',
    ]).id as number;
    admin = givenUserOf(env, accountId, 'admin', PASSWORD);
    // Recent events for "Try it": an unfiltered endpoint takes two lead.created events.
    cli(env, [
      'endpoint',
      'create',
      '--campaign',
      String(campaignId),
      '--url',
      receiver.url,
      '--events',
      'lead.created',
    ]);
    for (const firstName of ['Alice', 'Bob']) {
      cli(env, [
        'event',
        'emit',
        '--campaign',
        String(campaignId),
        '--type',
        'lead.created',
        '--data',
        JSON.stringify({ id: 1, first_name: firstName, source: 'fair' }),
      ]);
    }
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('types a filter, is told where it is wrong, tries it, saves it, and sees it on the endpoint page (1280 px)', async () => {
    const watched = await signedIn('desktop');
    const { page } = watched;
    const preview = `/dashboard/api/campaigns/${campaignId}/filter-preview`;
    watched.expectFailure(422, preview);
    await page.goto(`/dashboard/campaigns/${campaignId}/endpoints/new`);
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/filtered`);
    await page.getByRole('checkbox', { name: 'lead.created', exact: true }).check();

    // A typo: the service names the line, the column and the problem, at the field.
    await typeFilter(page, 'data.frist_name == "A"');
    await page.getByRole('button', { name: 'Try it' }).click();
    const problem = page.getByText(
      'filter has an error at line 1, column 6 (for lead.created events): No such key: frist_name',
    );
    await problem.waitFor();
    const editor = page.getByRole('textbox', { name: 'Filter' });
    expect(await editor.getAttribute('aria-invalid')).toBe('true');

    await typeFilter(page, FILTER);
    const sentBefore = receiver.bodies.length;
    await page.getByRole('button', { name: 'Try it' }).click();
    const results = page.getByRole('region', { name: 'Filter results' });
    await results.waitFor();
    // The example (Alva) and Alice match, Bob does not.
    await results.getByText('2 of 3 would be sent').waitFor();
    expect(await results.getByText('Match', { exact: true }).count()).toBe(2);
    expect(await results.getByText('No match', { exact: true }).count()).toBe(1);
    expect(await problem.count()).toBe(0);
    await watched.screenshot('filter-try-it-desktop');
    // Nothing was sent by trying.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.bodies.length).toBe(sentBefore);

    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    const shown = page.getByTestId('endpoint-filter');
    await shown.waitFor();
    expect(await shown.innerText()).toContain(FILTER);
    endpointId = Number(new URL(page.url()).pathname.split('/').at(-1));
    expect(Number.isInteger(endpointId)).toBe(true);
    await watched.screenshot('filter-endpoint-desktop');
  });

  it('edits and tries the filter with the keyboard at 390 px, nothing wider than the screen', async () => {
    const watched = await signedIn('mobile');
    const { page } = watched;
    await page.goto(`/dashboard/endpoints/${endpointId}/edit`);
    // Until the code editor has loaded, a plain text area stands in for it (its value is not
    // its inner text): wait for the editor showing the saved filter.
    const editor = page.getByRole('textbox', { name: 'Filter' });
    await until('the code editor with the saved filter', async () =>
      (await editor.innerText()).includes(FILTER) ? true : undefined,
    );
    // Keyboard only: Tab reaches the editor and leaves it; Mod-Enter tries the filter.
    await editor.focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' || data.source == "fair"');
    await page.keyboard.press('ControlOrMeta+Enter');
    const results = page.getByRole('region', { name: 'Filter results' });
    await results.getByText('3 of 3 would be sent').waitFor();
    await page.keyboard.press('Tab');
    expect(
      await editor.evaluate((element) => element === element.ownerDocument.activeElement),
    ).toBe(false);
    const body = page.locator('body');
    expect(await overhang(page.getByTestId('filter-editor'), body)).toBeLessThanOrEqual(0);
    expect(await overhang(results, body)).toBeLessThanOrEqual(0);
    await watched.screenshot('filter-try-it-mobile');

    await page.getByRole('button', { name: 'Save changes' }).click();
    const shown = page.getByTestId('endpoint-filter');
    await shown.waitFor();
    expect(await shown.innerText()).toContain('data.source == "fair"');
    expect(await overhang(shown, body)).toBeLessThanOrEqual(0);
    await watched.screenshot('filter-endpoint-mobile');
  });
});
