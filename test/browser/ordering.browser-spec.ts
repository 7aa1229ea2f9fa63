import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import {
  closeCheckedPages,
  expectNoSideScroll,
  launchChromium,
  openPage,
  submitSignIn,
  until,
  type ViewportName,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import { uploadLeads } from './support/public-api';
import {
  cli,
  givenEndpointOfNewAccount,
  startDashboardService,
  type DashboardService,
} from './support/service';

const PASSWORD = 'correct horse battery staple';

/** A receiver that answers 500 to every request: a lead's first delivery keeps waiting on its retry. */
async function startFailingReceiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(500);
      response.end('down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/**
 * Per-lead ordering in the dashboard (docs/webhooks.md#per-lead-ordering): an admin chooses
 * "In order per lead" in the endpoint form, the endpoint's page says so, and a lead's page shows
 * a delivery held behind the lead's earlier one, linked to it; at 1280 and 390 px.
 */
describe('Per-lead ordering in the dashboard', () => {
  let service: DashboardService;
  let browser: Browser;
  let receiver: { server: Server; url: string };
  let account: ReturnType<typeof givenEndpointOfNewAccount>;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    receiver = await startFailingReceiver();
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1h',
    });
    browser = await launchChromium();
    account = givenEndpointOfNewAccount(
      service.env,
      receiver.url,
      ['lead.created', 'lead.status_changed'],
      PASSWORD,
    );
  });

  afterAll(async () => {
    await closeCheckedPages(pages);
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  async function signedIn(path: string, viewport: ViewportName): Promise<WatchedPage> {
    const watched = await openPage(browser, service.origin, viewport);
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    await watched.page.goto(`/dashboard${path}`);
    await submitSignIn(watched.page, account.admin.email, PASSWORD);
    return watched;
  }

  it.each(['desktop', 'mobile'] as const)(
    'chooses "In order per lead" in the endpoint form and shows it on the endpoint page (%s)',
    async (viewport) => {
      const watched = await signedIn(`/endpoints/${account.endpointId}/edit`, viewport);
      const { page } = watched;
      const perLead = page.getByRole('radio', { name: 'In order per lead' });
      await perLead.waitFor();
      expect(await page.getByRole('radio', { name: 'As they come' }).isChecked()).toBe(true);
      await perLead.scrollIntoViewIfNeeded();
      const box = (await perLead.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
      await perLead.check();
      await expectNoSideScroll(page);
      await watched.screenshot(`ordering-endpoint-form-${viewport}`);
      await page.getByRole('button', { name: 'Save changes' }).click();
      const said = page.getByTestId('endpoint-ordering');
      await said.waitFor();
      expect(await said.innerText()).toBe('Delivery order: in order per lead');
      const [row] = await queryDatabase<{ ordering: string }>(
        'SELECT ordering FROM webhook_endpoint WHERE id = $1',
        [account.endpointId],
      );
      expect(row).toEqual({ ordering: 'per_lead' });
      await expectNoSideScroll(page);
      await watched.screenshot(`ordering-endpoint-page-${viewport}`);
      // Back to as they come for the next viewport's run.
      await queryDatabase(`UPDATE webhook_endpoint SET ordering = 'none' WHERE id = $1`, [
        account.endpointId,
      ]);
    },
  );

  it('shows a delivery held behind the lead’s failing one as waiting, linked to it, at 390 px', async () => {
    await queryDatabase(`UPDATE webhook_endpoint SET ordering = 'per_lead' WHERE id = $1`, [
      account.endpointId,
    ]);
    const key = cli(service.env, [
      'api-key',
      'create',
      '--account',
      String(account.accountId),
      '--name',
      'ordering',
    ]).api_key as string;
    const { import_id: importId } = await uploadLeads(service.origin, key, account.campaignId, [
      { phone: '+14155550123', first_name: 'Grace' },
    ]);
    const [lead] = await queryDatabase<{ id: string }>('SELECT id FROM lead WHERE import_id = $1', [
      importId,
    ]);
    // The lead.created fails and waits an hour for its retry; the status change waits behind it.
    const created = await until('the failed first attempt', async () => {
      const [row] = await queryDatabase<{ id: string }>(
        `SELECT d.id FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
          WHERE e.lead_id = $1 AND d.attempt_count = 1`,
        [lead.id],
      );
      return row?.id;
    });
    cli(service.env, [
      'event',
      'emit',
      '--campaign',
      String(account.campaignId),
      '--type',
      'lead.status_changed',
      '--data',
      JSON.stringify({ lead_id: Number(lead.id), status: 'contacted' }),
    ]);
    const held = await until('the held delivery', async () => {
      const [row] = await queryDatabase<{ id: string; held_by: string | null }>(
        `SELECT d.id, d.held_by FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
          WHERE e.lead_id = $1 AND e.type = 'lead.status_changed' AND d.held_by IS NOT NULL`,
        [lead.id],
      );
      return row;
    });
    expect(held.held_by).toBe(created);

    const watched = await signedIn(`/leads/${lead.id}`, 'mobile');
    const { page } = watched;
    const notice = page.getByTestId('lead-delivery-held');
    await notice.waitFor();
    expect(await notice.innerText()).toContain(
      `Waiting behind delivery ${created} (in order per lead)`,
    );
    await notice.scrollIntoViewIfNeeded();
    await expectNoSideScroll(page);
    await watched.screenshot('ordering-lead-held-mobile');
    await page.getByRole('link', { name: `delivery ${created}` }).click();
    expect(new URL(page.url()).hash).toBe(`#delivery-${created}`);
    expect(await page.locator(`[id="delivery-${created}"]`).innerText()).toContain('lead.created');
  });
});
