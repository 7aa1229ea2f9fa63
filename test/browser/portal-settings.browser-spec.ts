import type { Browser, Page } from 'playwright-core';
import {
  closeCheckedPages,
  expectNoSideScroll,
  launchChromium,
  openPage,
  submitSignIn,
  type ViewportName,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import { apiTokenOf } from './support/public-api';
import { HostServer, hostHtml, portalFrame, portalMessage } from './support/portal-host';
import { cli, givenUserOf, startDashboardService, type DashboardService } from './support/service';

/**
 * The account's portal origins in a browser (docs/dashboard.md#embedding-the-portal,
 * docs/security.md#embedded-portal): an admin opens **Embedded portal** from the navigation and
 * adds the origin of a platform's page, at 1280 and 390 px; the origin is stored and audited,
 * and a portal link minted for it then renders framed by that page. The browser's check of a
 * bad origin, a removal (the origin's page then gets no portal) and a viewer's read-only page.
 * Screenshots go to test/browser/screenshots/portal-settings-*.png.
 */
describe('Portal origins page in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let accountId: number;
  let admin: { email: string };
  let viewer: { email: string };
  let token: string;
  const hosts: Partial<Record<ViewportName, HostServer>> = {};
  const pages: WatchedPage[] = [];

  const storedOrigins = async () =>
    (
      await queryDatabase<{ portal_origins: string[] }>(
        'SELECT portal_origins FROM account WHERE id = $1',
        [accountId],
      )
    )[0].portal_origins;
  const audited = async () =>
    queryDatabase<{ actor_type: string; actor_user_id: number | null }>(
      `SELECT actor_type, actor_user_id FROM audit_log_entry
        WHERE account_id = $1 AND action = 'account.portal_origins_update' ORDER BY id`,
      [accountId],
    );

  beforeAll(async () => {
    service = await startDashboardService();
    browser = await launchChromium();
    // One platform page per screen width, each on its own loopback address (its own origin).
    hosts.desktop = await new HostServer('127.0.0.4').start();
    hosts.mobile = await new HostServer('127.0.0.5').start();
    accountId = cli(service.env, ['account', 'create', '--name', `Portal settings ${process.pid}`])
      .id as number;
    cli(service.env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Autumn launch',
    ]);
    admin = givenUserOf(service.env, accountId, 'admin', PASSWORD);
    viewer = givenUserOf(service.env, accountId, 'viewer', PASSWORD);
    const key = cli(service.env, ['api-key', 'create', '--account', String(accountId)])
      .api_key as string;
    token = await apiTokenOf(service.origin, key);
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await hosts.desktop?.stop();
    await hosts.mobile?.stop();
  });

  /** Mints a link through the public API for a page on `parentOrigin`: its status and body. */
  async function mint(parentOrigin: string): Promise<{ status: number; body: { url: string } }> {
    const res = await fetch(`${service.origin}/api/v1/portal/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        role: 'admin',
        expires_in: 600,
        subject: { id: 'acme-user-9' },
        parent_origin: parentOrigin,
      }),
    });
    return { status: res.status, body: (await res.json()) as { url: string } };
  }

  /** A page signed in as `email` at `viewport`, on the portal settings page from the navigation. */
  async function settingsPage(email: string, viewport: ViewportName): Promise<WatchedPage> {
    const watched = await openPage(browser, service.origin, viewport);
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    const { page } = watched;
    await page.goto('/dashboard/');
    await submitSignIn(page, email, PASSWORD);
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    if (viewport === 'mobile') await page.getByRole('button', { name: 'Open the menu' }).click();
    await page.getByRole('link', { name: 'Embedded portal', exact: true }).click();
    await page.getByRole('heading', { name: 'Embedded portal', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Registered origins', level: 2 }).waitFor();
    return watched;
  }

  const listed = (page: Page) => page.getByTestId('portal-origin').allInnerTexts();

  it.each<ViewportName>(['desktop', 'mobile'])(
    'an admin adds an origin (%s); a portal minted for it then renders framed by its page',
    async (viewport) => {
      const host = hosts[viewport]!;
      const before = await storedOrigins();
      // Not registered yet: no link can be minted for that page.
      expect((await mint(host.origin)).status).toBe(422);

      const watched = await settingsPage(admin.email, viewport);
      const { page } = watched;
      expect(await page.title()).toBe('Embedded portal · Campaign API dashboard');
      await page.getByLabel('Portal origin', { exact: true }).fill(host.origin);
      await page.getByRole('button', { name: 'Add origin', exact: true }).click();
      await page.getByRole('button', { name: `Remove ${host.origin}`, exact: true }).waitFor();
      expect(await page.getByLabel('Portal origin', { exact: true }).inputValue()).toBe('');
      expect(await listed(page)).toEqual(
        [...before, host.origin].map((o) => expect.stringContaining(o)),
      );
      await expectNoSideScroll(page);
      console.log(`screenshot: ${await watched.screenshot(`portal-settings-${viewport}`)}`);

      // Stored as the page shows it, and audited as the admin's change.
      expect(await storedOrigins()).toEqual([...before, host.origin]);
      expect((await audited()).at(-1)).toEqual({
        actor_type: 'user',
        actor_user_id: expect.any(Number),
      });
      await page.reload();
      await page.getByRole('button', { name: `Remove ${host.origin}`, exact: true }).waitFor();

      // The platform's page on that origin now frames a working portal.
      const link = await mint(host.origin);
      expect(link.status).toBe(201);
      const hostPage = await openPage(browser, host.origin, viewport);
      pages.push(hostPage);
      await hostPage.page.goto(host.page(hostHtml(link.body.url, service.origin)));
      await portalMessage(hostPage.page, 'portal.ready');
      const frame = await portalFrame(hostPage.page);
      await frame.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
      await frame.getByRole('link', { name: 'Autumn launch' }).waitFor();
      console.log(
        `screenshot: ${await hostPage.screenshot(`portal-settings-framed-${viewport}`, { fullPage: false })}`,
      );
    },
  );

  it('checks an origin in the browser first, and removes one after a confirmation: its page then gets no portal', async () => {
    const host = hosts.desktop!;
    const watched = await settingsPage(admin.email, 'desktop');
    const { page } = watched;
    const field = page.getByLabel('Portal origin', { exact: true });
    const before = await storedOrigins();
    const updates = (await audited()).length;
    await field.fill('http://app.example.com/embed');
    await page.getByRole('button', { name: 'Add origin', exact: true }).click();
    await page
      .getByText('Only the scheme, host and port, without a path, query or wildcard', {
        exact: false,
      })
      .waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    console.log(`screenshot: ${await watched.screenshot('portal-settings-error-desktop')}`);
    expect(await storedOrigins()).toEqual(before);

    await page.getByRole('button', { name: `Remove ${host.origin}`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${host.origin}?` });
    await dialog.getByRole('button', { name: 'Remove the origin', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page
      .getByRole('button', { name: `Remove ${host.origin}`, exact: true })
      .waitFor({ state: 'detached' });
    expect(await storedOrigins()).toEqual(before.filter((o) => o !== host.origin));
    expect(await audited()).toHaveLength(updates + 1);
    // No link for that page any more.
    expect((await mint(host.origin)).status).toBe(422);

    // The audit log page shows the change, by whom, with the list before and after.
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const entry = page
      .getByRole('row')
      .filter({ hasText: 'account.portal_origins_update' })
      .first();
    await entry.waitFor();
    const text = await entry.innerText();
    expect(text).toContain(admin.email);
    expect(text).toContain(`previous: ${before.join(', ')}`);
    console.log(`screenshot: ${await watched.screenshot('portal-settings-audit-desktop')}`);
  });

  it('shows a viewer the origins with nothing to change them', async () => {
    const watched = await settingsPage(viewer.email, 'desktop');
    const { page } = watched;
    await page.getByText(hosts.mobile!.origin).waitFor();
    await page.getByText('Only an admin of your account can change them.').waitFor();
    expect(await page.getByLabel('Portal origin', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    console.log(`screenshot: ${await watched.screenshot('portal-settings-viewer-desktop')}`);
  });
});
