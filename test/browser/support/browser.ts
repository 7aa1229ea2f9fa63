import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type ConsoleMessage,
  type Page,
} from 'playwright-core';

/** Chromium to drive: Debian's (`apt-get install -y chromium`) unless CHROMIUM_PATH says otherwise. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** How Chromium runs here: headless, no sandbox (containers), nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Where screenshots go (git-ignored): one PNG per page and viewport, overwritten on each run. */
export const SCREENSHOT_DIR = join(__dirname, '..', 'screenshots');

/** The viewports every page must work at. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** Launches Chromium; fails with what to install when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** An HTTP error answer a test expects (e.g. GET /dashboard/api/session → 401 when signed out). */
interface ExpectedFailure {
  status: number;
  pathname: string;
}

/**
 * A page whose every problem is recorded: a console error (which includes a Content-Security-
 * Policy violation and a resource that failed to load), an uncaught exception, a request that
 * got no answer, and an HTTP error answer the test did not declare with {@link expectFailure}.
 * {@link assertClean} fails the test on any of them.
 */
export class WatchedPage {
  readonly problems: string[] = [];
  private readonly expected: ExpectedFailure[] = [];

  constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    page.on('console', (message) => this.onConsole(message));
    page.on('pageerror', (error) =>
      this.problems.push(`page error: ${error.stack ?? error.message}`),
    );
    page.on('requestfailed', (request) => {
      // A navigation or refetch that replaced an in-flight request is not a failure.
      if (request.failure()?.errorText === 'net::ERR_ABORTED') return;
      this.problems.push(
        `request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`,
      );
    });
    page.on('response', (response) => {
      if (response.status() < 400) return;
      const { pathname } = new URL(response.url());
      if (!this.isExpected(response.status(), pathname)) {
        this.problems.push(
          `HTTP ${response.status()} for ${response.request().method()} ${pathname}`,
        );
      }
    });
  }

  /** Declares that `pathname` may answer `status` (each declaration covers any number of answers). */
  expectFailure(status: number, pathname: string): this {
    this.expected.push({ status, pathname });
    return this;
  }

  private isExpected(status: number, pathname: string): boolean {
    return this.expected.some((e) => e.status === status && e.pathname === pathname);
  }

  private onConsole(message: ConsoleMessage): void {
    if (message.type() !== 'error') return;
    const text = message.text();
    // Chromium logs every HTTP error answer as "Failed to load resource"; the response
    // listener above judges those.
    const failedLoad = /^Failed to load resource: the server responded with a status of (\d+)/.exec(
      text,
    );
    if (failedLoad && message.location().url) return;
    this.problems.push(`console error: ${text} (${message.location().url})`);
  }

  /** Throws when anything went wrong on the page. */
  assertClean(): void {
    if (this.problems.length > 0) {
      throw new Error(`The page had problems:\n- ${this.problems.join('\n- ')}`);
    }
  }

  /**
   * A PNG at `screenshots/<name>.png`: the full page, or only the viewport with
   * `fullPage: false` (Chromium paints a cross-origin frame only partly into a full-page shot).
   */
  async screenshot(
    name: string,
    { fullPage = true }: { fullPage?: boolean } = {},
  ): Promise<string> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    // Settle first: no spinner, no transition half-way.
    await this.page.waitForLoadState('networkidle');
    await this.page.evaluate('document.fonts.ready.then(() => true)');
    // From the top: a full-page shot of a scrolled page draws the fixed header mid-page.
    await this.page.evaluate('window.scrollTo(0, 0)');
    await this.page.screenshot({ path, fullPage, animations: 'disabled', caret: 'hide' });
    return path;
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

/** A new browser context (its own cookies) and page at `viewport`, watched for problems. */
export async function openPage(
  browser: Browser,
  baseURL: string,
  viewport: ViewportName = 'desktop',
): Promise<WatchedPage> {
  const context = await browser.newContext({
    baseURL,
    viewport: VIEWPORTS[viewport],
    deviceScaleFactor: 1,
    isMobile: viewport === 'mobile',
    hasTouch: viewport === 'mobile',
    locale: 'en-GB',
    timezoneId: 'Europe/Paris',
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  context.setDefaultTimeout(10_000);
  return new WatchedPage(context, await context.newPage());
}

/** Fills the sign-in form on `page` and submits it. */
export async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Closes the pages a test opened (emptying `pages`) after checking each was clean: the
 * `afterEach` of every browser suite. Fails the test with every page's problems.
 */
export async function closeCheckedPages(pages: WatchedPage[]): Promise<void> {
  const watched = pages.splice(0);
  try {
    for (const page of watched) page.assertClean();
  } finally {
    await Promise.all(watched.map((page) => page.close()));
  }
}

/**
 * A new page (added to `pages`, for {@link closeCheckedPages}) signed in as `email` on the
 * campaigns page; the 401 of the session check before sign-in is expected.
 */
export async function signedInPage(
  browser: Browser,
  origin: string,
  pages: WatchedPage[],
  email: string,
  password: string,
): Promise<WatchedPage> {
  const watched = await openPage(browser, origin, 'desktop');
  watched.expectFailure(401, '/dashboard/api/session');
  pages.push(watched);
  await watched.page.goto('/dashboard/');
  await submitSignIn(watched.page, email, password);
  await watched.page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
  return watched;
}

/** Picks `file` in the spreadsheet import page's file input (not uploaded yet). */
export async function chooseSpreadsheet(page: Page, file: string): Promise<void> {
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: 'Spreadsheet file' }).click(),
  ]);
  await chooser.setFiles(file);
}

/** Picks `file` in the spreadsheet import page's file input and uploads it. */
export async function uploadSpreadsheet(page: Page, file: string): Promise<void> {
  await chooseSpreadsheet(page, file);
  await page.getByRole('button', { name: 'Upload file' }).click();
}

/**
 * Polls `probe` every 200 ms until it answers a value other than undefined, for up to 20 s
 * (state the page or the worker reaches a moment later).
 * @throws Error naming `what` when it never does.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Fails when the page scrolls sideways (something wider than the viewport). */
export async function expectNoSideScroll(page: Page): Promise<void> {
  expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
}
