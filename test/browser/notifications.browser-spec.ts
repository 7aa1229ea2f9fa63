import type { Browser, Page } from 'playwright-core';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';
import {
  closeCheckedPages,
  launchChromium,
  openPage,
  signedInPage,
  submitSignIn,
  type WatchedPage,
} from './support/browser';
import { queryDatabase } from './support/database';
import { uploadLeads } from './support/public-api';
import {
  cli,
  givenEndpointOfNewAccount,
  givenUserOf,
  LOCAL_DELIVERY_WATCHED,
  startDashboardService,
  type DashboardService,
} from './support/service';

/**
 * How much wider than the screen the page is (0: no sideways scrolling), and the elements of
 * the page's main part that are wider than their box (scrolled or cut off sideways).
 */
async function sideways(page: Page): Promise<{ page: number; clipped: string[] }> {
  return {
    page: await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    ),
    clipped: await page.evaluate<string[]>(
      "[...document.querySelectorAll('main *')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => `${e.tagName} ${e.textContent.slice(0, 40)}`)",
    ),
  };
}

/**
 * The account's notification URL in a browser (docs/webhooks.md#operational-messages), against
 * the real service and worker: an admin sets it from the navigation and sees its signing secret
 * once; the URL is stored and shown after a reload; an endpoint that starts failing is then
 * announced to it, signed with the secret the page showed. Also at phone width, for a viewer,
 * and its removal. Screenshots go to test/browser/screenshots/.
 */
describe('Notification settings in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let ops: WebhookReceiver;
  let broken: WebhookReceiver;
  let account: ReturnType<typeof givenEndpointOfNewAccount>;
  let viewer: { email: string };
  let apiKey: string;
  const pages: WatchedPage[] = [];

  const signedIn = (email = account.admin.email) =>
    signedInPage(browser, service.origin, pages, email, PASSWORD);
  const stored = () =>
    queryDatabase<{ url: string; secret_encrypted: string }>(
      'SELECT url, secret_encrypted FROM account_notification WHERE account_id = $1',
      [account.accountId],
    );
  const audited = async () =>
    (
      await queryDatabase<{ details: Record<string, unknown> }>(
        `SELECT details FROM audit_log_entry
          WHERE account_id = $1 AND action = 'account.notifications_update' ORDER BY id`,
        [account.accountId],
      )
    ).map((row) => row.details);

  async function openSettings(page: Page): Promise<void> {
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    await page.getByTestId('notification-url').waitFor();
  }

  beforeAll(async () => {
    // The account's operations receiver, and a receiver that fails every delivery.
    ops = await new WebhookReceiver().start();
    broken = await new WebhookReceiver().start();
    broken.behaviour = { status: 500 };
    service = await startDashboardService(LOCAL_DELIVERY_WATCHED);
    browser = await launchChromium();
    account = givenEndpointOfNewAccount(service.env, broken.url, ['lead.created'], PASSWORD);
    viewer = givenUserOf(service.env, account.accountId, 'viewer', PASSWORD);
    apiKey = cli(service.env, ['api-key', 'create', '--account', String(account.accountId)])
      .api_key as string;
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await ops?.stop();
    await broken?.stop();
  });

  it('sets the URL: the secret is shown once, the URL persists, and messages verify with that secret', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await openSettings(page);
    expect(await page.title()).toBe('Notifications · Campaign API dashboard');
    expect(await page.getByTestId('notification-url').innerText()).toMatch(
      /No notification URL is set/,
    );
    console.log(`screenshot: ${await watched.screenshot('notifications-empty-desktop')}`);

    const field = page.getByLabel('Notification URL', { exact: true });
    const save = page.getByRole('button', { name: 'Save URL', exact: true });
    // Refused in the browser, in the endpoint form's words: nothing is sent.
    await field.fill('ftp://ops.example.com');
    await save.click();
    await page.getByText('The URL must start with https:// or http://, not ftp:').waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await stored()).toEqual([]);
    console.log(`screenshot: ${await watched.screenshot('notifications-error-desktop')}`);

    await field.fill(ops.url);
    await save.click();
    const secret = (await page.getByTestId('secret-text').innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await page.getByText('You will not see it again', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();
    console.log(`screenshot: ${await watched.screenshot('notifications-secret-desktop')}`);

    // Stored: the URL, and the secret only encrypted; the change audited, never the secret.
    const [row, ...others] = await stored();
    expect(others).toEqual([]);
    expect(row.url).toBe(ops.url);
    expect(row.secret_encrypted).toMatch(/^v1:/);
    expect(row.secret_encrypted).not.toContain(secret.slice('whsec_'.length));
    expect(await audited()).toEqual([{ url: ops.url, new_secret: true }]);

    await page.reload();
    await page.getByTestId('notification-url').getByText(ops.url).waitFor();
    expect(await field.inputValue()).toBe(ops.url);
    expect(await page.getByTestId('secret-text').count()).toBe(0);
    expect(await sideways(page)).toEqual({ page: 0, clipped: [] });
    console.log(`screenshot: ${await watched.screenshot('notifications-set-desktop')}`);

    // Every delivery of 25 fails: the endpoint starts failing, and the URL hears of it.
    await uploadLeads(service.origin, apiKey, account.campaignId, 25);
    const [message] = await ops.waitFor(1, 30_000);
    expect(String(message.headers['webhook-id'])).toMatch(/^msg_/);
    expect(verifyWebhook(secret, message)).toMatchObject({
      type: 'endpoint.failing',
      data: {
        endpoint_id: account.endpointId,
        campaign_id: account.campaignId,
        url: broken.url,
        reason: 'failure_rate',
      },
    });
  }, 60_000);

  it('fits a phone: the menu leads to it, and a new secret wraps without sideways scrolling', async () => {
    const watched = await openPage(browser, service.origin, 'mobile');
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    const { page } = watched;
    await page.goto('/dashboard/');
    await submitSignIn(page, account.admin.email, PASSWORD);
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Open the menu' }).click();
    await openSettings(page);
    await page.getByTestId('notification-url').getByText(ops.url).waitFor();
    expect(await sideways(page)).toEqual({ page: 0, clipped: [] });
    console.log(`screenshot: ${await watched.screenshot('notifications-mobile')}`);

    // A new URL is a new secret, shown once.
    const changed = `${ops.url}?via=phone`;
    await page.getByLabel('Notification URL', { exact: true }).fill(changed);
    await page.getByRole('button', { name: 'Save URL', exact: true }).click();
    await page.getByTestId('secret-text').waitFor();
    expect(await sideways(page)).toEqual({ page: 0, clipped: [] });
    console.log(`screenshot: ${await watched.screenshot('notifications-secret-mobile')}`);
    expect((await stored()).map((row) => row.url)).toEqual([changed]);
  });

  it('shows a viewer the URL with nothing to change it', async () => {
    const watched = await signedIn(viewer.email);
    const { page } = watched;
    await openSettings(page);
    await page.getByTestId('notification-url').getByText(`${ops.url}?via=phone`).waitFor();
    await page.getByText('Only an admin of your account can change it.').waitFor();
    expect(await page.getByLabel('Notification URL', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save URL' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove URL' }).count()).toBe(0);
    console.log(`screenshot: ${await watched.screenshot('notifications-viewer-desktop')}`);
  });

  it('removes the URL after a confirmation', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await openSettings(page);
    await page.getByRole('button', { name: 'Remove URL', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the notification URL?' });
    await dialog.waitFor();
    console.log(`screenshot: ${await watched.screenshot('notifications-remove-desktop')}`);
    await dialog.getByRole('button', { name: 'Remove the URL', exact: true }).click();
    await page.getByText('No notification URL is set', { exact: false }).waitFor();
    expect(await page.getByLabel('Notification URL', { exact: true }).inputValue()).toBe('');
    expect(await stored()).toEqual([]);
    expect((await audited()).at(-1)).toEqual({ url: null, new_secret: false });
  });
});
