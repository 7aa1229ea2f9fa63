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
import {
  cli,
  givenEndpointOfNewAccount,
  startDashboardService,
  type DashboardService,
} from './support/service';

/**
 * A receiver whose answer the test switches: 500 while deliveries are to fail, then 204. With
 * `busy` set, an event whose `data.want` is `busy` is answered 503 with `Retry-After: 1`.
 */
async function startReceiver() {
  const byWebhookId = new Map<string, number>();
  const state = { status: 500, delayMs: 0, received: 0, busy: false };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.received += 1;
      const id = String(request.headers['webhook-id']);
      byWebhookId.set(id, (byWebhookId.get(id) ?? 0) + 1);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data: { want?: string };
      };
      setTimeout(() => {
        if (state.busy && body.data.want === 'busy') {
          response.writeHead(503, { 'retry-after': '1' });
        } else {
          response.writeHead(state.status);
        }
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

/** Records a `lead.created` event of the campaign per `data` entry, through the CLI. */
function emitEvents(env: Record<string, string>, campaignId: number, data: object[]) {
  for (const item of data) {
    const event = ['--campaign', String(campaignId), '--type', 'lead.created'];
    cli(env, ['event', 'emit', ...event, '--data', JSON.stringify(item)]);
  }
}

/**
 * The service with its worker and a retry schedule of `schedule`, Chromium, a receiver, and an
 * endpoint of a new account to it with `data.length` events recorded, once the receiver got
 * `attempts` requests.
 */
async function givenFailingEndpoint(
  schedule: string,
  data: object[],
  attempts: number,
  password: string,
  busy = false,
) {
  const receiver = await startReceiver();
  receiver.state.busy = busy;
  const service = await startDashboardService({
    RUN_WORKER: 'true',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: schedule,
  });
  const browser = await launchChromium();
  const given = givenEndpointOfNewAccount(service.env, receiver.url, ['lead.created'], password);
  emitEvents(service.env, given.campaignId, data);
  await until(`${attempts} attempts`, () => receiver.state.received >= attempts);
  return { receiver, service, browser, ...given };
}

/** Closes what {@link givenFailingEndpoint} started (any of them may be missing). */
async function stopAll(
  browser?: Browser,
  service?: DashboardService,
  receiver?: Awaited<ReturnType<typeof startReceiver>>,
) {
  await browser?.close();
  await service?.stop();
  await new Promise((resolve) => receiver?.server.close(resolve) ?? resolve(undefined));
}

/** Signs `email` in on a desktop page and opens the endpoint's page: its bulk recovery card. */
async function openBulkRecovery(
  browser: Browser,
  service: DashboardService,
  pages: WatchedPage[],
  email: string,
  password: string,
  endpointId: number,
) {
  const watched = await signedInPage(browser, service.origin, pages, email, password);
  const { page } = watched;
  await page.goto(`/dashboard/endpoints/${endpointId}`);
  const card = page.getByRole('region', { name: 'Bulk recovery' });
  await card.waitFor();
  return { watched, page, card };
}

/**
 * Bulk recovery on the endpoint page (docs/dashboard.md#bulk-recovery), against the real
 * service with its worker: three deliveries fail for good (the receiver answers 500, the retry
 * schedule is one step of 1 s), the admin previews them, redelivers them after a confirmation
 * and watches the progress reach done; each webhook-id then arrives exactly once more. Then the
 * replay of what a disabled endpoint missed (docs/dashboard.md#replaying-missed-deliveries):
 * re-enabled on its page, it offers the count, at desktop and phone widths, and replays.
 */
describe('Bulk recovery in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let endpointId: number;
  let admin: { email: string };
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    // Two attempts each (the first try and one retry), both refused: failed for good.
    ({ receiver, service, browser, endpointId, admin } = await givenFailingEndpoint(
      '1s',
      [{ id: 1 }, { id: 2 }, { id: 3 }],
      6,
      PASSWORD,
    ));
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(() => stopAll(browser, service, receiver));

  it('previews the failed deliveries, redelivers them after a confirmation and shows the progress to done', async () => {
    const { watched, page, card } = await openBulkRecovery(
      browser,
      service,
      pages,
      admin.email,
      PASSWORD,
      endpointId,
    );
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

  it('offers, once an admin enables a disabled endpoint again, to replay what it missed, and replays it', async () => {
    // Another endpoint, of another account, disabled while three events are recorded: skipped.
    const other = await startReceiver();
    other.state.status = 204;
    try {
      const env = service.env;
      const given = givenEndpointOfNewAccount(env, other.url, ['lead.created'], PASSWORD);
      cli(env, ['endpoint', 'update', '--id', String(given.endpointId), '--disable']);
      emitEvents(env, given.campaignId, [{ id: 1 }, { id: 2 }, { id: 3 }]);
      const path = `/dashboard/endpoints/${given.endpointId}`;
      const heading = { name: new URL(other.url).host, level: 1 } as const;

      const desktop = await signedInPage(
        browser,
        service.origin,
        pages,
        given.admin.email,
        PASSWORD,
      );
      await desktop.page.goto(path);
      await desktop.page.getByRole('heading', heading).waitFor();
      await desktop.page.getByTestId('disabled-notice').waitFor();
      await desktop.page.getByRole('button', { name: 'Enable endpoint' }).click();
      const offer = desktop.page.getByRole('region', { name: 'Replay missed deliveries' });
      // The count first: the three skipped since it was disabled.
      await offer.getByText(/^Replay 3 missed deliveries since/).waitFor();
      expect(await desktop.page.getByRole('button', { name: 'Enable endpoint' }).count()).toBe(0);
      expect(other.state.received).toBe(0);

      // The same offer at phone width, nothing wider than the screen.
      const phone = await openPage(browser, service.origin, 'mobile');
      phone.expectFailure(401, '/dashboard/api/session');
      pages.push(phone);
      await phone.page.goto(path);
      await submitSignIn(phone.page, given.admin.email, PASSWORD);
      await phone.page.getByRole('heading', heading).waitFor();
      const phoneOffer = phone.page.getByRole('region', { name: 'Replay missed deliveries' });
      await phoneOffer.getByRole('button', { name: 'Replay 3 missed deliveries' }).waitFor();
      const overflow = await phone.page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      console.log(`screenshot: ${await phone.screenshot('replay-offer-mobile')}`);
      console.log(`screenshot: ${await desktop.screenshot('replay-offer-desktop')}`);

      other.state.delayMs = 700; // slow enough to watch it run
      await offer.getByRole('button', { name: 'Replay 3 missed deliveries' }).click();
      const progress = offer.getByRole('progressbar', { name: 'Replay progress' });
      await progress.waitFor();
      await offer.getByText(/^Done: missed deliveries since/).waitFor({ timeout: 20_000 });
      await offer.getByText('3 of 3').waitFor();
      expect(await progress.getAttribute('aria-valuenow')).toBe('100');
      console.log(`screenshot: ${await desktop.screenshot('replay-done-desktop')}`);
      // Each skipped delivery reached the receiver once, and succeeded.
      await until('three replayed deliveries', () => other.state.received >= 3);
      expect([...other.byWebhookId.values()]).toEqual([1, 1, 1]);

      // Dismissed, the offer is gone; the start is in the audit log.
      await offer.getByRole('button', { name: 'Dismiss' }).click();
      await offer.waitFor({ state: 'detached' });
      await desktop.page.goto('/dashboard/audit-log');
      await desktop.page
        .getByRole('table', { name: 'Audit log' })
        .getByText('delivery.replay_missed')
        .first()
        .waitFor();
    } finally {
      await new Promise((resolve) => other.server.close(resolve));
    }
  });
});

/**
 * Bulk recovery of deliveries waiting on a retry (docs/dashboard.md#bulk-recovery): with a
 * retry schedule of one step of 30 minutes, two deliveries answered 500 wait half an hour for
 * their retry, and two answered 503 with `Retry-After: 1` fail for good within seconds. The
 * preview names both kinds apart, at desktop and phone widths; once the receiver is fixed, the
 * recovery sends each exactly once more.
 */
describe('Bulk recovery of deliveries waiting on a retry in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let endpointId: number;
  let admin: { email: string };
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    // The busy ones: the first try and its retry a second later. The others: the first try.
    ({ receiver, service, browser, endpointId, admin } = await givenFailingEndpoint(
      '30m',
      ['busy', 'no', 'busy', 'no'].map((want, id) => ({ id, want })),
      6,
      PASSWORD,
      true,
    ));
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(() => stopAll(browser, service, receiver));

  it('previews the failed deliveries and those waiting on a retry apart, and sends each once more now', async () => {
    const { watched, page, card } = await openBulkRecovery(
      browser,
      service,
      pages,
      admin.email,
      PASSWORD,
      endpointId,
    );
    const preview = card.getByTestId('recovery-preview');
    await until('a preview of both kinds', async () => {
      await card.getByRole('button', { name: 'Preview' }).click();
      await preview.waitFor();
      return /^2 failed deliveries and 2 pending deliveries waiting on a retry since/.test(
        await preview.innerText(),
      );
    });
    expect(await card.getByTestId('recovery-preview-kinds').innerText()).toMatch(
      /^Failed: their retries ran out; each gets one more attempt\. Waiting on a retry: their last attempt failed; their next attempt moves to now/,
    );
    await card.scrollIntoViewIfNeeded();
    console.log(`screenshot: ${await watched.screenshot('recovery-preview-retrying-desktop')}`);

    // The same preview at phone width, nothing wider than the screen.
    const phone = await openPage(browser, service.origin, 'mobile');
    phone.expectFailure(401, '/dashboard/api/session');
    pages.push(phone);
    await phone.page.goto(`/dashboard/endpoints/${endpointId}`);
    await submitSignIn(phone.page, admin.email, PASSWORD);
    const phoneCard = phone.page.getByRole('region', { name: 'Bulk recovery' });
    await phoneCard.getByRole('button', { name: 'Preview' }).click();
    await phoneCard
      .getByText(/^2 failed deliveries and 2 pending deliveries waiting on a retry since/)
      .waitFor();
    expect(
      await phone.page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await phoneCard.scrollIntoViewIfNeeded();
    console.log(`screenshot: ${await phone.screenshot('recovery-preview-retrying-mobile')}`);

    // Fixed: every delivery is answered 204.
    receiver.state.busy = false;
    receiver.state.status = 204;
    const received = receiver.state.received;
    await card.getByRole('button', { name: 'Redeliver 4 deliveries now' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Redeliver' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await card.getByText(/^Done: failed deliveries since/).waitFor({ timeout: 20_000 });
    await card.getByText('4 of 4').waitFor();

    // Each was sent exactly once more: the failed ones a third time, the waiting ones a second.
    await until('four more requests', () => receiver.state.received >= received + 4);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.state.received).toBe(received + 4);
    expect([...receiver.byWebhookId.values()].sort()).toEqual([2, 2, 3, 3]);
  });
});
