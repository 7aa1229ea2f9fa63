import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
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

/** The first version: a header added, the payload reshaped to the lead's first name. */
const V1 = `function handler(webhook) {
  webhook.headers['x-campaign'] = 'winter';
  webhook.payload = { name: webhook.payload.data.first_name, kind: webhook.event_type, note: 'a long line that has to wrap on a phone screen rather than overflow it sideways' };
  return webhook;
}
`;

/** Code that throws on line 2. */
const THROWS = `function handler(webhook) {
  throw new Error('no phone in ' + webhook.event_type);
}
`;

/** The second: one more header. */
const V2 = V1.replace(
  '  return webhook;',
  "  webhook.headers['x-version'] = 'two';\n  return webhook;",
);

/**
 * An endpoint's transformation in the dashboard (docs/dashboard.md#transformations,
 * docs/webhooks.md#transformations): opened from the endpoint page, code pasted into the editor,
 * run on the example (the Result shows the request, nothing is sent), saved twice, the two
 * versions compared and the first restored as a third; then at 390 px, run on a past delivery,
 * nothing wider than the screen. No console error.
 */
describe('Transformations in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
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

  /** The code editor itself (not the plain text area standing in until CodeMirror loads). */
  function editor(page: Page) {
    return page
      .getByTestId('transformation-editor')
      .getByRole('textbox', { name: 'Transformation code' });
  }

  /** Replaces the editor's text as a paste would (select all, then insert the text at once). */
  async function pasteCode(page: Page, code: string): Promise<void> {
    await editor(page).click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(code);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startDashboardService({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    browser = await launchChromium();
    const env = service.env;
    const accountId = cli(env, [
      'account',
      'create',
      '--name',
      `Browser transformations ${process.pid}`,
    ]).id as number;
    const campaignId = cli(env, [
      'campaign',
      'create',
      '--account',
      String(accountId),
      '--name',
      'Winter fair',
    ]).id as number;
    admin = givenUserOf(env, accountId, 'admin', PASSWORD);
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
    // A past delivery for "Run on a past delivery", sent before any transformation.
    cli(env, [
      'event',
      'emit',
      '--campaign',
      String(campaignId),
      '--type',
      'lead.created',
      '--data',
      JSON.stringify({ id: 1, first_name: 'Bea', source: 'fair' }),
    ]);
    await until('the past delivery to arrive', () =>
      receiver.bodies.length > 0 ? true : undefined,
    );
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('pastes code, runs it on the example, saves two versions, compares them and restores the first (1280 px)', async () => {
    const watched = await signedIn('desktop');
    const { page } = watched;
    await page.goto(`/dashboard/endpoints/${endpointId}`);
    const line = page.getByTestId('endpoint-transformation');
    await line.getByText('Transformation: none').waitFor();
    await page.getByRole('link', { name: 'Transformation', exact: true }).click();
    await page.getByRole('heading', { name: /: transformation$/, level: 1 }).waitFor();
    await until('the editor with the starter code', async () =>
      (await editor(page).count()) > 0 &&
      (await editor(page).innerText()).includes(
        '// webhook: { method, url, headers, payload, event_type }',
      )
        ? true
        : undefined,
    );

    // Code that throws: the error names its line and column, and the editor marks that line.
    await pasteCode(page, THROWS);
    await page.getByRole('button', { name: 'Run on the example' }).click();
    const failed = page.getByRole('region', { name: 'Result' }).locator('[data-outcome="error"]');
    await failed.getByText(/at line 2, column \d+/).waitFor();
    expect(await editor(page).getAttribute('aria-invalid')).toBe('true');
    await page.locator('.cm-lintRange-error').first().waitFor();
    await watched.screenshot('transformation-error-desktop');

    await pasteCode(page, V1);
    expect(await editor(page).getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByRole('combobox', { name: 'Example event type' }).inputValue()).toBe(
      'lead.created',
    );
    const sentBefore = receiver.bodies.length;
    await page.getByRole('button', { name: 'Run on the example' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByTestId('result-url').waitFor();
    expect(await result.getByTestId('result-url').innerText()).toBe(receiver.url);
    const headers = result.getByRole('table', { name: 'Request headers' });
    await headers.getByText('x-campaign').waitFor();
    expect(await headers.getByText('winter').count()).toBe(1);
    expect(await result.getByTestId('result-body').innerText()).toContain('"name": "Alva"');
    await watched.screenshot('transformation-run-desktop');
    // Nothing was sent by running.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.bodies.length).toBe(sentBefore);

    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByText('Saved as version 1').waitFor();
    await page
      .getByTestId('transformation-in-force')
      .getByText(/Version 1 is in force/)
      .waitFor();

    await pasteCode(page, V2);
    await result.getByText('The code in the editor has changed since this run.').waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByText('Saved as version 2').waitFor();
    const history = page.getByRole('table', { name: 'History' });
    await history.getByText('v2 (in force)').waitFor();

    expect(await page.getByRole('combobox', { name: 'From version' }).inputValue()).toBe('1');
    expect(await page.getByRole('combobox', { name: 'To version' }).inputValue()).toBe('2');
    await page.getByRole('button', { name: 'Compare' }).click();
    const diff = page.getByRole('list', { name: 'Changes from v1 to v2' });
    await diff.waitFor();
    const added = diff.locator('li[data-kind="added"]');
    expect(await added.count()).toBe(1);
    expect(await added.innerText()).toContain("webhook.headers['x-version'] = 'two';");
    await page.getByText('v1 → v2: 1 line added, 0 lines removed.').waitFor();
    await watched.screenshot('transformation-compare-desktop');

    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page
      .getByRole('dialog', { name: 'Restore version 1?' })
      .getByRole('button', { name: 'Restore v1' })
      .click();
    await history.getByText('restored from v1').waitFor();
    await history.getByText('v3 (in force)').waitFor();
    // The comparison shown and its choices still agree once the restore added a version.
    expect(await page.getByRole('combobox', { name: 'To version' }).inputValue()).toBe('2');
    await page
      .getByTestId('transformation-in-force')
      .getByText(/Version 3 is in force/)
      .waitFor();
    await until('the editor with the restored code', async () =>
      (await editor(page).innerText()).includes('x-version') ? undefined : true,
    );
    await watched.screenshot('transformation-restored-desktop');

    await page.goto(`/dashboard/endpoints/${endpointId}`);
    await line.getByText('Transformation: version 3 in force').waitFor();
    await watched.screenshot('transformation-endpoint-desktop');
  });

  it('runs the code in force on a past delivery and compares versions at 390 px, nothing wider than the screen', async () => {
    const watched = await signedIn('mobile');
    const { page } = watched;
    await page.goto(`/dashboard/endpoints/${endpointId}/transformation`);
    await until('the editor with the code in force', async () =>
      (await editor(page).count()) > 0 && (await editor(page).innerText()).includes('x-campaign')
        ? true
        : undefined,
    );
    const past = page.getByRole('combobox', { name: 'Past delivery' });
    await until('a past delivery to choose', async () =>
      (await past.locator('option').first().innerText()).includes('lead.created · delivery')
        ? true
        : undefined,
    );
    await page.getByRole('button', { name: 'Run on a past delivery' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByTestId('result-body').waitFor();
    expect(await result.getByTestId('result-body').innerText()).toContain('"name": "Bea"');
    expect(await result.getByTestId('result-source').innerText()).toMatch(/on delivery \d+/);

    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('list', { name: 'Changes from v2 to v3' }).waitFor();

    const body = page.locator('body');
    await expectNoSideScroll(page);
    expect(await overhang(page.getByTestId('transformation-editor'), body)).toBeLessThanOrEqual(0);
    expect(await overhang(result, body)).toBeLessThanOrEqual(0);
    expect(await overhang(page.getByTestId('version-diff'), body)).toBeLessThanOrEqual(0);
    await watched.screenshot('transformation-mobile');
  });
});
