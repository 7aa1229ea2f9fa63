import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import {
  givenEndpointOfNewAccount,
  startDashboardService,
  type DashboardService,
} from './support/service';

/** A receiver answering `state.status` (500 until the test says otherwise), counting requests. */
async function startReceiver() {
  const state = { status: 500, received: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.received += 1;
      response.writeHead(state.status);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, state };
}

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Endpoints that come back by themselves, in the dashboard
 * (docs/webhooks.md#endpoints-that-come-back-by-themselves): an admin switches “Come back
 * automatically” on in the endpoint form; once the endpoint is disabled automatically, its page
 * says when the next probe is due, at desktop and phone widths; and when the real worker's probe
 * is answered with a 2xx, the page shows it enabled again. The automatic disabling is written to
 * the database directly (days of failures otherwise).
 */
describe('Endpoints that come back by themselves, in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let given: ReturnType<typeof givenEndpointOfNewAccount>;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_MONITOR_INTERVAL_MS: '500',
    });
    browser = await launchChromium();
    given = givenEndpointOfNewAccount(service.env, receiver.url, ['lead.created'], PASSWORD);
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve) ?? resolve(undefined));
  });

  it('switches “Come back automatically” on, shows the next probe at 1280 and 390 px, and shows the endpoint enabled once a probe is answered', async () => {
    const watched = await signedInPage(browser, service.origin, pages, given.admin.email, PASSWORD);
    const { page } = watched;
    await page.goto(`/dashboard/endpoints/${given.endpointId}`);
    const setting = page.getByTestId('endpoint-auto-recover');
    await setting.getByText('Comes back automatically: off').waitFor();

    await page.goto(`/dashboard/endpoints/${given.endpointId}/edit`);
    const toggle = page.getByRole('switch', { name: /^Come back automatically/ });
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click();
    expect(await toggle.isChecked()).toBe(true);
    await watched.screenshot('auto-recover-form-desktop');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await setting.getByText('Comes back automatically: on').waitFor();
    expect(
      await queryDatabase('SELECT auto_recover FROM webhook_endpoint WHERE id = $1', [
        given.endpointId,
      ]),
    ).toEqual([{ auto_recover: true }]);

    // Disabled automatically (as the worker does after days of failures): probing starts.
    await queryDatabase(
      `UPDATE webhook_endpoint
          SET is_enabled = false, disabled_reason = 'auto', disabled_at = now() - interval '3 hours',
              probing_since = now() - interval '3 hours', probe_count = 2,
              last_probe_at = now() - interval '1 hour', next_probe_at = now() + interval '1 hour'
        WHERE id = $1`,
      [given.endpointId],
    );
    await page.reload();
    const notice = page.getByTestId('recovery-probe');
    await notice.waitFor();
    expect(await notice.innerText()).toMatch(
      /^It comes back by itself: next probe at .+ \(2 probes so far, the last at .+\)\./,
    );
    await watched.screenshot('auto-recover-probing-desktop');

    const phone = await openPage(browser, service.origin, 'mobile');
    phone.expectFailure(401, '/dashboard/api/session');
    pages.push(phone);
    await phone.page.goto(`/dashboard/endpoints/${given.endpointId}`);
    await submitSignIn(phone.page, given.admin.email, PASSWORD);
    await phone.page.getByTestId('recovery-probe').waitFor();
    // Nothing wider than the phone's screen.
    const overflow = await phone.page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBe(0);
    await phone.screenshot('auto-recover-probing-mobile');

    // The receiver is back and the probe is due: the worker's probe enables the endpoint.
    receiver.state.status = 204;
    await queryDatabase(`UPDATE webhook_endpoint SET next_probe_at = now() WHERE id = $1`, [
      given.endpointId,
    ]);
    await until('the endpoint enabled by its probe', async () => {
      const [row] = await queryDatabase<{ is_enabled: boolean }>(
        'SELECT is_enabled FROM webhook_endpoint WHERE id = $1',
        [given.endpointId],
      );
      return row.is_enabled;
    });
    await page.reload();
    await page.getByTestId('endpoint-url').waitFor();
    expect(await page.getByTestId('recovery-probe').count()).toBe(0);
    expect(await page.getByTestId('disabled-notice').count()).toBe(0);
    await watched.screenshot('auto-recover-recovered-desktop');
  });
});
