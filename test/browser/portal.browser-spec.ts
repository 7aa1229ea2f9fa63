import type { Browser } from 'playwright-core';
import { WebhookReceiver } from '../support/webhook-receiver';
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  closeCheckedPages,
  openPage,
  until,
  type ViewportName,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import { apiTokenOf } from './support/public-api';
import {
  HostServer,
  hostHtml,
  portalFrame,
  portalMessage,
  portalMessages,
} from './support/portal-host';
import { cli, startDashboardService, type DashboardService } from './support/service';
import { chromium } from 'playwright-core';

/**
 * The embeddable portal in Chromium with third-party cookies blocked
 * (docs/dashboard.md#embedding-the-portal, docs/security.md#embedded-portal): a host page on
 * another loopback address frames it; inside the frame a user creates an endpoint, sends a test
 * event and opens the delivery log and an attempt, at 1280 and 390 px; and every refusal the
 * browser enforces: the same link twice, an expired link, a revoked session mid-use, a viewer's
 * controls, an unregistered origin, a message from another origin, the secret in a query.
 * Screenshots go to test/browser/screenshots/portal-*.png.
 */
describe('Embedded portal in a browser', () => {
  let service: DashboardService;
  let browser: Browser;
  let host: HostServer;
  let stranger: HostServer;
  let receiver: WebhookReceiver;
  let accountId: number;
  let campaignId: number;
  let token: string;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    // Third-party cookies blocked, as Chromium does by default for them to come.
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, '--test-third-party-cookie-phaseout'],
    });
    host = await new HostServer('127.0.0.2').start();
    stranger = await new HostServer('127.0.0.3').start();
    accountId = cli(service.env, ['account', 'create', '--name', `Portal ${process.pid}`])
      .id as number;
    campaignId = cli(service.env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Spring launch',
    ]).id as number;
    cli(service.env, [
      'portal',
      'origins-set',
      '--account',
      String(accountId),
      '--origins',
      host.origin,
    ]);
    const key = cli(service.env, ['api-key', 'create', '--account', String(accountId)])
      .api_key as string;
    token = await apiTokenOf(service.origin, key);
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await host?.stop();
    await stranger?.stop();
    await receiver?.stop();
  });

  /** Mints a link through the public API, as the platform's backend does. */
  async function mint(body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
    const res = await fetch(`${service.origin}/api/v1/portal/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        role: 'admin',
        expires_in: 600,
        subject: { id: 'acme-user-7', name: 'Grace' },
        theme: { primary_color: '#0b7285', scheme: 'light' },
        ...body,
      }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; url: string };
  }

  /** A watched page (added to `pages`) at `viewport`. */
  async function hostPage(viewport: ViewportName = 'desktop'): Promise<WatchedPage> {
    const watched = await openPage(browser, host.origin, viewport);
    pages.push(watched);
    return watched;
  }

  const messages = portalMessages;
  const message = portalMessage;

  it.each<ViewportName>(['desktop', 'mobile'])(
    'inside the frame (%s), creates an endpoint, sends a test event and opens the delivery log and an attempt',
    async (viewport) => {
      const link = await mint({ campaign_ids: [campaignId] });
      const watched = await hostPage(viewport);
      const { page } = watched;
      await page.goto(host.page(hostHtml(link.url, service.origin)));
      expect(await message(page, 'portal.ready')).toEqual({
        type: 'portal.ready',
        link_id: link.id,
      });
      const frame = await portalFrame(page);
      // The secret left the frame's address at once.
      expect(frame.url()).toBe(`${service.origin}/portal/${link.id}`);
      // Third-party cookies are blocked here: the frame cannot set one (the portal needs none).
      expect(
        await frame.evaluate<boolean>(
          "document.cookie = 'probe=1; SameSite=None; Secure; Path=/'; document.cookie.includes('probe=1')",
        ),
      ).toBe(false);

      // The campaigns of the link only, without the dashboard's navigation.
      await frame.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
      expect(await frame.getByRole('link', { name: 'API keys' }).count()).toBe(0);
      expect(await frame.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
      await frame.getByRole('link', { name: 'Spring launch' }).click();
      await frame.getByRole('heading', { name: 'Spring launch', level: 1 }).waitFor();
      await frame.getByRole('link', { name: 'Add endpoint' }).first().click();
      await frame.getByLabel('URL', { exact: true }).fill(receiver.url);
      await frame.getByLabel('Description', { exact: true }).fill(`Portal ${viewport}`);
      await frame.getByRole('checkbox', { name: 'lead.created', exact: true }).check();
      await frame.getByRole('button', { name: 'Create endpoint' }).click();
      const created = await message(page, 'endpoint.created');
      expect(created).toEqual({
        type: 'endpoint.created',
        endpoint_id: expect.any(Number),
        campaign_id: campaignId,
      });
      await frame.getByRole('link', { name: 'Go to the endpoint' }).click();
      await frame.getByRole('button', { name: 'Send test event' }).click();
      await frame.getByTestId('test-result').waitFor();
      const rows = frame.getByTestId('delivery-log').getByTestId('attempt-row');
      await until('the test event in the delivery log', async () => {
        if ((await rows.count()) > 0) return true;
        await frame
          .getByRole('region', { name: 'Delivery log' })
          .getByRole('button', { name: 'Refresh' })
          .click();
        return undefined;
      });
      await watched.screenshot(`portal-endpoint-${viewport}`, { fullPage: false });
      await rows
        .first()
        .getByRole('button', { name: /^Open attempt/ })
        .click();
      await frame.getByRole('dialog').getByTestId('request-body').waitFor();
      await watched.screenshot(`portal-attempt-${viewport}`, { fullPage: false });

      // Recorded as the platform's user, through the key that minted the link.
      const [audit] = await queryDatabase<{ actor_label: string; actor_type: string }>(
        `SELECT actor_type, actor_label FROM audit_log_entry
          WHERE account_id = $1 AND action = 'endpoint.create' AND object_id = $2`,
        [accountId, String(created.endpoint_id)],
      );
      expect(audit).toEqual({ actor_type: 'portal', actor_label: 'portal:acme-user-7' });
    },
  );

  it('refuses the same link twice: the second host page gets session.expired and no portal', async () => {
    const link = await mint();
    const first = await hostPage();
    await first.page.goto(host.page(hostHtml(link.url, service.origin)));
    await message(first.page, 'portal.ready');
    const second = await hostPage();
    second.expectFailure(401, '/dashboard/api/portal/exchange');
    await second.page.goto(host.page(hostHtml(link.url, service.origin)));
    await message(second.page, 'session.expired');
    const frame = await portalFrame(second.page);
    await frame.getByText('This portal session has ended').waitFor();
    expect((await messages(second.page)).map((m) => m.type)).toEqual(['session.expired']);
  });

  it('refuses an expired link with session.expired', async () => {
    const link = await mint({ expires_in: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const watched = await hostPage();
    watched.expectFailure(401, '/dashboard/api/portal/exchange');
    await watched.page.goto(host.page(hostHtml(link.url, service.origin)));
    await message(watched.page, 'session.expired');
    await (await portalFrame(watched.page)).getByText('This portal session has ended').waitFor();
  });

  it('ends a session revoked mid-use: the next request fails and the host gets session.expired', async () => {
    const link = await mint();
    const watched = await hostPage();
    watched.expectFailure(401, `/dashboard/api/campaigns/${campaignId}/endpoints`);
    await watched.page.goto(host.page(hostHtml(link.url, service.origin)));
    await message(watched.page, 'portal.ready');
    const frame = await portalFrame(watched.page);
    await frame.getByRole('link', { name: 'Spring launch' }).waitFor();
    const revoked = await fetch(`${service.origin}/api/v1/portal/sessions/${link.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(204);
    // The next request of the portal: the campaign's endpoints.
    await frame.getByRole('link', { name: 'Spring launch' }).click();
    await message(watched.page, 'session.expired');
    await frame.getByText('This portal session has ended').waitFor();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a viewer', { role: 'viewer' }, 'portal-viewer-desktop'],
    // The server refuses such a link every change of an endpoint (403): nothing offers one.
    [
      'an admin link without the endpoints page',
      { pages: ['deliveries'] },
      'portal-deliveries-only-desktop',
    ],
  ])(
    'shows %s no control that changes an endpoint, but the delivery log',
    async (_who, scope, shot) => {
      const link = await mint(scope);
      const watched = await hostPage();
      await watched.page.goto(host.page(hostHtml(link.url, service.origin)));
      await message(watched.page, 'portal.ready');
      const frame = await portalFrame(watched.page);
      await frame.getByRole('link', { name: 'Spring launch' }).click();
      await frame.getByRole('heading', { name: 'Spring launch', level: 1 }).waitFor();
      const endpoint = frame.getByRole('link', { name: receiver.url }).first();
      await endpoint.waitFor();
      expect(await frame.getByRole('link', { name: 'Add endpoint' }).count()).toBe(0);
      await endpoint.click();
      await frame.getByTestId('delivery-log').waitFor();
      expect(await frame.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
      expect(await frame.getByRole('link', { name: 'Edit endpoint' }).count()).toBe(0);
      expect(await frame.getByRole('button', { name: 'Delete endpoint' }).count()).toBe(0);
      expect(await frame.getByRole('button', { name: 'Reveal secret' }).count()).toBe(0);
      await watched.screenshot(shot, { fullPage: false });
    },
  );

  it('is not rendered in a page of an unregistered origin, and its link stays unused', async () => {
    const link = await mint();
    // Chromium reports the refused frame on the console: a page of its own, not watched.
    const context = await browser.newContext();
    const page = await context.newPage();
    const refusals: string[] = [];
    page.on('console', (m) => refusals.push(m.text()));
    await page.goto(stranger.page(hostHtml(link.url, service.origin)));
    await until('the frame to be refused', () =>
      refusals.some((text) => text.includes('frame-ancestors')) ? true : undefined,
    );
    const frame = await (await page.locator('#portal').elementHandle())!.contentFrame();
    expect(frame?.url()).not.toContain(`/portal/${link.id}`);
    expect(await messages(page)).toEqual([]);
    const [row] = await queryDatabase<{ used_at: Date | null }>(
      'SELECT used_at FROM portal_link WHERE id = $1',
      [link.id],
    );
    expect(row.used_at).toBeNull();
    await context.close();
  });

  it('ignores a message from another origin and answers its host', async () => {
    const link = await mint();
    const attacker = stranger.page(
      `<!doctype html><script>parent.frames[0].postMessage({ type: 'portal.ping' }, '*');</script>`,
    );
    const watched = await hostPage();
    await watched.page.goto(host.page(hostHtml(link.url, service.origin)));
    await message(watched.page, 'portal.ready');
    // Another origin's frame in the host page pings the portal: no answer.
    await watched.page.evaluate(`(() => {
      const frame = document.createElement('iframe');
      frame.src = ${JSON.stringify(attacker)};
      document.body.appendChild(frame);
      return new Promise((resolve) => frame.addEventListener('load', resolve));
    })()`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await messages(watched.page)).map((m) => m.type)).toEqual(['portal.ready']);
    // The host's own ping is answered, to the host only.
    await watched.page.evaluate(
      `document.getElementById('portal').contentWindow.postMessage({ type: 'portal.ping' }, ${JSON.stringify(service.origin)})`,
    );
    await message(watched.page, 'portal.pong');
  });

  it('refuses the link with its secret in a query string (400), never serving the page', async () => {
    const link = await mint();
    const watched = await hostPage();
    watched.expectFailure(400, `/portal/${link.id}`);
    const secret = new URL(link.url).hash.slice(1);
    const response = await watched.page.goto(
      `${service.origin}/portal/${link.id}?secret=${secret}`,
    );
    expect(response?.status()).toBe(400);
    expect(await watched.page.locator('#root').count()).toBe(0);
    const [row] = await queryDatabase<{ used_at: Date | null }>(
      'SELECT used_at FROM portal_link WHERE id = $1',
      [link.id],
    );
    expect(row.used_at).toBeNull();
  });
});
