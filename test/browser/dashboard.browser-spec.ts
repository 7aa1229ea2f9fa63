import type { Browser, Page } from 'playwright-core';
import {
  launchChromium,
  openPage,
  type ViewportName,
  type WatchedPage,
  closeCheckedPages,
  submitSignIn,
} from './support/browser';
import {
  givenDashboardUser,
  startDashboardService,
  type DashboardService,
} from './support/service';

/**
 * The dashboard in Chromium against the real service (docs/dashboard.md):
 * the controls are found by their accessible names, as the black-box tests find them. Every
 * test fails on a console error, an uncaught exception or an undeclared HTTP error, and
 * screenshots each page it visits into test/browser/screenshots/.
 */
describe('The dashboard in a browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let service: DashboardService;
  let browser: Browser;
  let admin: { accountId: number; email: string };
  const pages: WatchedPage[] = [];

  /** A watched page; signed out, GET /dashboard/api/session answers 401, which is expected. */
  async function newPage(viewport: ViewportName = 'desktop'): Promise<WatchedPage> {
    const watched = await openPage(browser, service.origin, viewport);
    watched.expectFailure(401, '/dashboard/api/session');
    pages.push(watched);
    return watched;
  }

  const signIn = submitSignIn;

  beforeAll(async () => {
    service = await startDashboardService();
    browser = await launchChromium();
    admin = givenDashboardUser(service.env, 'admin', PASSWORD);
  }, 60_000);

  afterEach(() => closeCheckedPages(pages));

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('shows the sign-in form at /dashboard/ with the named controls, under a strict CSP', async () => {
    const watched = await newPage();
    const { page } = watched;
    const response = await page.goto('/dashboard/');
    expect(response?.status()).toBe(200);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self';");
    expect(csp).toMatch(/style-src 'self' 'nonce-[A-Za-z0-9+/]+=*'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');

    const email = page.getByLabel('Email', { exact: true });
    const password = page.getByLabel('Password', { exact: true });
    const submit = page.getByRole('button', { name: 'Sign in', exact: true });
    await expectVisible(email, password, submit);
    expect(await password.getAttribute('type')).toBe('password');
    // Mantine's run-time <style> tags are there, each with the response's nonce (else the
    // policy would have refused them, a console error).
    const styles = await page.evaluate<{ all: number; withNonce: number }>(
      "(() => { const s = [...document.querySelectorAll('style')]; return { all: s.length, withNonce: s.filter((e) => e.nonce).length }; })()",
    );
    expect(styles.all).toBeGreaterThan(0);
    expect(styles.withNonce).toBe(styles.all);
    // Keyboard alone: the form starts on Email, then Password, then the button.
    await expectFocused(email);
    await page.keyboard.press('Tab');
    await expectFocused(password);
    await page.keyboard.press('Tab');
    await expectFocused(submit);
    expect(await page.title()).toBe('Sign in · Campaign API dashboard');
    await watched.screenshot('sign-in-desktop');
  });

  it('fits the sign-in form on a 390 px wide screen', async () => {
    const watched = await newPage('mobile');
    await watched.page.goto('/dashboard/');
    const submit = watched.page.getByRole('button', { name: 'Sign in', exact: true });
    await expectVisible(submit);
    const box = (await submit.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await horizontalOverflow(watched.page)).toBe(false);
    await watched.screenshot('sign-in-mobile');
  });

  it('answers a wrong password and an unknown email with the same generic message', async () => {
    const watched = (await newPage()).expectFailure(401, '/dashboard/api/session');
    const { page } = watched;
    await page.goto('/dashboard/');
    await signIn(page, admin.email, 'not the password at all');
    const alert = page.getByRole('alert');
    await expectVisible(alert);
    const message = (await alert.innerText()).trim();
    expect(message.length).toBeGreaterThan(0);
    await watched.screenshot('sign-in-wrong-password');

    await signIn(page, `nobody-${Date.now()}@example.com`, 'not the password at all');
    await page.waitForResponse(
      (r) => r.url().endsWith('/dashboard/api/session') && r.request().method() === 'POST',
    );
    expect((await alert.innerText()).trim()).toBe(message);
    // Still the sign-in page, and the password field was cleared for the next try.
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
  });

  it('signs in to the shell: the user, their role and the navigation', async () => {
    const watched = await newPage();
    const { page } = watched;
    await page.goto('/dashboard/');
    await signIn(page, admin.email, PASSWORD);
    await page.waitForURL('**/dashboard/campaigns');
    await expectVisible(page.getByRole('heading', { name: 'Campaigns', level: 1 }));
    for (const name of ['Campaigns', 'API keys', 'Audit log']) {
      await expectVisible(page.getByRole('link', { name, exact: true }));
    }
    await expectVisible(page.getByRole('button', { name: 'Sign out', exact: true }));
    const user = page.getByTestId('signed-in-user').first();
    await expectVisible(user);
    expect(await user.innerText()).toContain(admin.email);
    expect((await user.innerText()).toLowerCase()).toContain('admin');
    expect(await page.title()).toBe('Campaigns · Campaign API dashboard');
    await watched.screenshot('campaigns-desktop');

    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.waitForURL('**/dashboard/api-keys');
    await expectVisible(page.getByRole('heading', { name: 'API keys', level: 1 }));
    await watched.screenshot('api-keys-desktop');

    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.waitForURL('**/dashboard/audit-log');
    await expectVisible(page.getByRole('heading', { name: 'Audit log', level: 1 }));
    await watched.screenshot('audit-log-desktop');
  });

  it('keeps a deep link through sign-in and a reload', async () => {
    const watched = await newPage();
    const { page } = watched;
    await page.goto('/dashboard/audit-log?page=2');
    await page.waitForURL('**/dashboard/?next=%2Faudit-log%3Fpage%3D2');
    await signIn(page, admin.email, PASSWORD);
    await page.waitForURL('**/dashboard/audit-log?page=2');
    await expectVisible(page.getByRole('heading', { name: 'Audit log', level: 1 }));

    await page.reload();
    await expectVisible(page.getByRole('heading', { name: 'Audit log', level: 1 }));
    expect(new URL(page.url()).pathname).toBe('/dashboard/audit-log');

    await page.goto('/dashboard/no-such-page');
    await expectVisible(page.getByRole('heading', { name: 'Page not found' }));
    await watched.screenshot('not-found-desktop');
  });

  it('works at 390 px: the navigation behind the menu button', async () => {
    const watched = await newPage('mobile');
    const { page } = watched;
    await page.goto('/dashboard/campaigns');
    await signIn(page, admin.email, PASSWORD);
    await expectVisible(page.getByRole('heading', { name: 'Campaigns', level: 1 }));
    expect(await horizontalOverflow(page)).toBe(false);
    await watched.screenshot('campaigns-mobile');

    await page.getByRole('button', { name: 'Open the menu' }).click();
    await expectVisible(page.getByRole('link', { name: 'Audit log', exact: true }));
    await watched.screenshot('navigation-mobile');
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.waitForURL('**/dashboard/audit-log');
    await expectVisible(page.getByRole('heading', { name: 'Audit log', level: 1 }));
  });

  it('navigates with the keyboard alone', async () => {
    const { page } = await newPage();
    await page.goto('/dashboard/');
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await expectVisible(page.getByRole('heading', { name: 'Campaigns', level: 1 }));

    // The first Tab reaches "Skip to content"; then on through the header to the links.
    await page.keyboard.press('Tab');
    await expectFocused(page.getByRole('link', { name: 'Skip to content' }));
    const apiKeys = page.getByRole('link', { name: 'API keys', exact: true });
    for (let i = 0; i < 10 && !(await isFocused(apiKeys)); i++) await page.keyboard.press('Tab');
    await expectFocused(apiKeys);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard/api-keys');
    await expectVisible(page.getByRole('heading', { name: 'API keys', level: 1 }));
  });

  it('signs out: back to the sign-in page, and the session is over', async () => {
    const watched = await newPage();
    const { page } = watched;
    await page.goto('/dashboard/');
    await signIn(page, admin.email, PASSWORD);
    await expectVisible(page.getByRole('heading', { name: 'Campaigns', level: 1 }));

    const signOut = page.waitForResponse(
      (r) => r.url().endsWith('/dashboard/api/session') && r.request().method() === 'DELETE',
    );
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    expect((await signOut).status()).toBeLessThan(300);
    await expectVisible(page.getByRole('button', { name: 'Sign in', exact: true }));
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    expect(new URL(page.url()).search).toBe('');

    // The cookie no longer opens a session: a reload of a page asks for a sign-in again.
    await page.goto('/dashboard/campaigns');
    await page.waitForURL('**/dashboard/?next=%2Fcampaigns');
    await expectVisible(page.getByLabel('Email', { exact: true }));
  });

  it('catches what fails these tests: console errors, exceptions, HTTP errors, CSP violations', async () => {
    const watched = await newPage();
    const { page } = watched;
    await page.goto('/dashboard/');
    await expectVisible(page.getByLabel('Email', { exact: true }));
    expect(watched.problems).toEqual([]);
    await page.evaluate("console.error('a console error')");
    await page.evaluate("setTimeout(() => { throw new Error('an uncaught exception'); })");
    await page.evaluate("fetch('/dashboard/api/no-such-route')");
    // Inline script and style without the nonce: the page's policy refuses both.
    await page.evaluate(
      "document.body.insertAdjacentHTML('beforeend', '<style>body { color: red }</style>'); const s = document.createElement('script'); s.textContent = 'window.injected = true'; document.body.append(s);",
    );
    await page.waitForTimeout(300);
    expect(await page.evaluate('window.injected === true')).toBe(false);
    const problems = watched.problems.splice(0).join('\n');
    expect(problems).toContain('a console error');
    expect(problems).toContain('an uncaught exception');
    expect(problems).toContain('HTTP 404 for GET /dashboard/api/no-such-route');
    expect(problems).toMatch(
      /inline style violates the following Content Security Policy directive 'style-src/,
    );
    expect(problems).toMatch(/Content Security Policy directive 'script-src 'self''/);
  });

  it('redirects /dashboard to /dashboard/', async () => {
    const { page } = await newPage();
    const response = await page.goto('/dashboard');
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    expect(response?.request().redirectedFrom()?.url()).toBe(`${service.origin}/dashboard`);
  });
});

type Locator = ReturnType<Page['getByRole']>;

async function expectVisible(...locators: Locator[]): Promise<void> {
  for (const locator of locators) await locator.waitFor({ state: 'visible' });
}

async function isFocused(locator: Locator): Promise<boolean> {
  // (Functions run in the page; this project's TypeScript has no DOM types, hence the strings.)
  return locator
    .evaluate((element) => element === element.ownerDocument.activeElement)
    .catch(() => false);
}

async function expectFocused(locator: Locator): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if (await isFocused(locator)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const active = await locator
    .page()
    .evaluate<string>("document.activeElement?.outerHTML.slice(0, 200) ?? 'nothing'");
  throw new Error(`${String(locator)} is not focused; focused: ${active}`);
}

/** Whether the page is wider than the viewport (something does not fit). */
async function horizontalOverflow(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');
}
