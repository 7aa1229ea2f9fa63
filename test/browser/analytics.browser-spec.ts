import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import {
  launchChromium,
  type WatchedPage,
  closeCheckedPages,
  openPage,
  signedInPage,
  submitSignIn,
} from './support/browser';
import { uploadLeads } from './support/public-api';
import {
  cli,
  givenUserOf,
  LOCAL_DELIVERY_WATCHED,
  startDashboardService,
  type DashboardService,
} from './support/service';

/**
 * A receiver that answers like a real one having a bad spell: most requests 204 after a short
 * wait, every fifth a 500, every seventh a 404.
 */
async function startFlakyReceiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const n = ++received;
      const status = n % 5 === 0 ? 500 : n % 7 === 0 ? 404 : 204;
      setTimeout(() => {
        response.writeHead(status);
        response.end();
      }, n % 13);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, count: () => received };
}

/**
 * The delivery charts (docs/delivery-analytics.md) in a browser, against the real service and
 * worker delivering to a local receiver: the campaign's and an endpoint's charts, the window
 * switch, and both colour schemes. Screenshots go to test/browser/screenshots/.
 */
describe('Delivery charts in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startFlakyReceiver>>;
  let campaignId: number;
  let endpointId: number;
  let failingCampaignId: number;
  let failingEndpointId: number;
  let broken: Server;
  let admin: { email: string };
  const pages: WatchedPage[] = [];

  const signedIn = () => signedInPage(browser, service.origin, pages, admin.email, PASSWORD);

  beforeAll(async () => {
    receiver = await startFlakyReceiver();
    service = await startDashboardService(LOCAL_DELIVERY_WATCHED);
    browser = await launchChromium();
    const env = service.env;
    const accountId = cli(env, ['account', 'create', '--name', `Browser charts ${process.pid}`])
      .id as number;
    campaignId = cli(env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Winter launch',
    ]).id as number;
    endpointId = cli(env, [
      'endpoint',
      'create',
      '--campaign',
      String(campaignId),
      '--url',
      receiver.url,
      '--events',
      'lead.created',
    ]).id as number;
    const apiKey = cli(env, ['api-key', 'create', '--account', String(accountId), '--name', 'k'])
      .api_key as string;
    admin = givenUserOf(env, accountId, 'admin', PASSWORD);

    // A second campaign whose only endpoint answers every delivery with 500: failing.
    broken = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(500);
        response.end('down for maintenance');
      });
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    failingCampaignId = cli(env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Broken receiver',
    ]).id as number;
    failingEndpointId = cli(env, [
      'endpoint',
      'create',
      '--campaign',
      String(failingCampaignId),
      '--url',
      `http://127.0.0.1:${(broken.address() as AddressInfo).port}/hooks`,
      '--events',
      'lead.created',
    ]).id as number;

    await uploadLeads(service.origin, apiKey, campaignId, 70);
    await uploadLeads(service.origin, apiKey, failingCampaignId, 25);
    const deadline = Date.now() + 20_000;
    while (receiver.count() < 70) {
      if (Date.now() > deadline)
        throw new Error(`only ${receiver.count()} of 70 deliveries arrived`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await new Promise((resolve) => broken?.close(resolve));
  });

  it('shows a campaign’s figures and four charts, and switches the window', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.goto(`/dashboard/campaigns/${campaignId}`);
    await page.getByRole('link', { name: 'Delivery charts' }).click();
    await page.getByRole('heading', { name: 'Campaign delivery charts', level: 1 }).waitFor();

    const figures = page.getByTestId('window-figures');
    await figures.getByText('70', { exact: true }).waitFor();
    // 70 attempts: 14 answered 500, 8 answered 404 (every 7th that is not also a 5th) → 48 ok.
    await figures.getByText('68.6 %').waitFor();
    for (const name of [
      'Delivery attempts by outcome',
      'Success rate',
      'Latency',
      'End-to-end lag',
    ]) {
      await page.getByRole('figure', { name }).locator('svg.recharts-surface').first().waitFor();
    }
    await page
      .getByRole('figure', { name: 'Delivery attempts by outcome' })
      .getByText('Server error (5xx)')
      .waitFor();
    console.log(`screenshot: ${await watched.screenshot('charts-campaign-24h-light')}`);

    // The window control is a radio group; its labels are what a person clicks.
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('/stats?window=1h') && r.status() === 200),
      page.getByText('1 hour', { exact: true }).click(),
    ]);
    expect(await page.getByRole('radio', { name: '1 hour' }).isChecked()).toBe(true);
    await figures.getByText('70', { exact: true }).waitFor();
    console.log(`screenshot: ${await watched.screenshot('charts-campaign-1h-light')}`);
  });

  it('shows an endpoint’s charts from its page, in the dark colour scheme too', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.goto(`/dashboard/endpoints/${endpointId}`);
    await page.getByRole('link', { name: 'Delivery charts' }).click();
    await page
      .getByRole('heading', {
        name: `${new URL(receiver.url).host}: delivery charts`,
        level: 1,
      })
      .waitFor();
    await page.getByTestId('window-figures').getByText('70', { exact: true }).waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await page.getByTestId('window-figures').getByText('70', { exact: true }).waitFor();
    const scheme = await page.evaluate(
      "document.documentElement.getAttribute('data-mantine-color-scheme')",
    );
    expect(scheme).toBe('dark');
    console.log(`screenshot: ${await watched.screenshot('charts-endpoint-24h-dark')}`);
  });

  it('warns on a failing endpoint’s page and marks it in its campaign', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.goto(`/dashboard/endpoints/${failingEndpointId}`);
    // The worker checks every 500 ms here; the page shows the mark once it is set.
    const banner = page.getByRole('alert').filter({ hasText: 'This endpoint is failing' });
    for (let tries = 0; !(await banner.isVisible()) && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.reload();
    }
    await banner.waitFor();
    expect(await banner.innerText()).toMatch(
      /more than half of its attempts in the last hour failed/,
    );
    expect(await banner.innerText()).toMatch(/will be disabled automatically on/);
    console.log(`screenshot: ${await watched.screenshot('endpoint-failing-banner')}`);
    await page.goto(`/dashboard/campaigns/${failingCampaignId}`);
    await page.getByText('Failing', { exact: true }).waitFor();
  });

  it('fits a phone: the window control and the charts stack in one column', async () => {
    const watched = await openPage(browser, service.origin, 'mobile');
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    const { page } = watched;
    await page.goto(`/dashboard/campaigns/${campaignId}/charts`);
    await submitSignIn(page, admin.email, PASSWORD);
    await page.getByRole('heading', { name: 'Campaign delivery charts', level: 1 }).waitFor();
    await page.getByTestId('window-figures').getByText('70', { exact: true }).waitFor();
    // Nothing wider than the screen: no sideways scrolling of the whole page.
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    // Every chart's plot is as tall as the others (a legend of seven series does not squash
    // the attempts chart), and counts are ticked in whole numbers.
    const plotHeight = async (name: string) =>
      (await page
        .getByRole('figure', { name })
        .locator('.recharts-cartesian-grid')
        .first()
        .boundingBox())!.height;
    const attemptsPlot = await plotHeight('Delivery attempts by outcome');
    expect(attemptsPlot).toBeGreaterThanOrEqual(150);
    for (const name of ['Success rate', 'Latency', 'End-to-end lag']) {
      expect(Math.abs((await plotHeight(name)) - attemptsPlot)).toBeLessThanOrEqual(2);
    }
    // Recharts 3 draws an axis's tick labels in a layer of their own, outside the axis's group
    // (`.recharts-yAxis` holds only the tick lines); the labels' group names its axis.
    const ticks = await page
      .getByRole('figure', { name: 'Delivery attempts by outcome' })
      .locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value')
      .allTextContents();
    expect(ticks.length).toBeGreaterThan(1);
    for (const tick of ticks) expect(tick).toMatch(/^\d[\d,]*$/);
    console.log(`screenshot: ${await watched.screenshot('charts-campaign-24h-mobile')}`);
  });
});
