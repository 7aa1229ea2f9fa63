import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import {
  closeCheckedPages,
  launchChromium,
  signedInPage,
  type WatchedPage,
} from './support/browser';
import {
  cli,
  givenEndpointOfNewAccount,
  startDashboardService,
  type DashboardService,
} from './support/service';

/** A receiver whose answer the test switches: 500 while deliveries are to fail, then 204. */
async function startReceiver() {
  const byWebhookId = new Map<string, number>();
  const state = { status: 500, delayMs: 0, received: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.received += 1;
      const id = String(request.headers['webhook-id']);
      byWebhookId.set(id, (byWebhookId.get(id) ?? 0) + 1);
      setTimeout(() => {
        response.writeHead(state.status);
        response.end();
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, state, byWebhookId };
}

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Bulk recovery on the endpoint page (docs/dashboard.md#bulk-recovery), against the real
 * service with its worker: three deliveries fail for good (the receiver answers 500, the retry
 * schedule is one step of 1 s), the admin previews them, redelivers them after a confirmation
 * and watches the progress reach done; each webhook-id then arrives exactly once more.
 */
describe('Bulk recovery in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let campaignId: number;
  let endpointId: number;
  let admin: { email: string };
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s',
    });
    browser = await launchChromium();
    const env = service.env;
    ({ campaignId, endpointId, admin } = givenEndpointOfNewAccount(
      env,
      receiver.url,
      ['lead.created'],
      PASSWORD,
    ));
    for (let i = 1; i <= 3; i += 1) {
      const event = ['--campaign', String(campaignId), '--type', 'lead.created'];
      cli(env, ['event', 'emit', ...event, '--data', JSON.stringify({ id: i })]);
    }
    // Two attempts each (the first try and one retry), both refused: failed for good.
    await until('six failed attempts', () => receiver.state.received >= 6);
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('previews the failed deliveries, redelivers them after a confirmation and shows the progress to done', async () => {
    const watched = await signedInPage(browser, service.origin, pages, admin.email, PASSWORD);
    const { page } = watched;
    await page.goto(`/dashboard/endpoints/${endpointId}`);
    await page.getByRole('heading', { name: `Endpoint ${endpointId}`, level: 1 }).waitFor();

    const card = page.getByRole('region', { name: 'Bulk recovery' });
    const since = card.getByLabel('Failed since');
    // Yesterday at this time, by default: before the three deliveries.
    expect(await since.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    const preview = card.getByTestId('recovery-preview');
    // The last result of the last failure may be recorded a moment after its request arrived.
    await until('a preview of three', async () => {
      await card.getByRole('button', { name: 'Preview' }).click();
      await preview.waitFor();
      return /^3 failed deliveries since/.test(await preview.innerText());
    });

    receiver.state.status = 204;
    receiver.state.delayMs = 700; // slow enough to watch it run
    await card.getByRole('button', { name: 'Redeliver 3 failed deliveries' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Redeliver' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const progress = card.getByRole('progressbar', { name: 'Recovery progress' });
    await progress.waitFor();
    await card.getByText(/^Done: failed deliveries since/).waitFor({ timeout: 20_000 });
    await card.getByText('3 of 3').waitFor();
    expect(await progress.getAttribute('aria-valuenow')).toBe('100');
    expect(await card.getByRole('button', { name: 'Cancel recovery' }).count()).toBe(0);
    await watched.screenshot('bulk-recovery-done-desktop');

    // Each of the three was sent exactly once more: two refused attempts, then one success.
    await until('three redeliveries', () => receiver.state.received >= 9);
    expect([...receiver.byWebhookId.values()]).toEqual([3, 3, 3]);
  });
});
