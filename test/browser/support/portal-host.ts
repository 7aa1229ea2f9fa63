/**
 * The platform's side of the embedded portal in browser tests
 * (docs/dashboard.md#embedding-the-portal): a web server on another loopback address and the
 * host page that frames the portal.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Frame, Page } from 'playwright-core';
import { until } from './browser';

/**
 * A small web server on another loopback address: the platform's own pages that embed the
 * portal. Each page is registered by the test and served at `/page/<n>`.
 */
export class HostServer {
  private server?: Server;
  private readonly pages = new Map<string, string>();
  private next = 0;

  constructor(readonly host: string) {}

  get origin(): string {
    return `http://${this.host}:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const html = this.pages.get(request.url ?? '');
      response.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html' });
      response.end(html ?? 'not found');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, this.host, resolve));
    return this;
  }

  /** Serves `html` at a new path; its URL. */
  page(html: string): string {
    const path = `/page/${++this.next}`;
    this.pages.set(path, html);
    return `${this.origin}${path}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/**
 * The host's page, as docs/dashboard.md#embedding-the-portal shows it: an iframe with the
 * portal's URL, and a listener that keeps the portal's messages (from the service's origin
 * only) in `window.portalMessages`. `extra` is more HTML (another origin's frame).
 */
export function hostHtml(portalUrl: string, serviceOrigin: string, extra = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Acme CRM</title>
<style>body{font-family:system-ui;margin:0}header{padding:12px 16px;background:#1d2733;color:#fff}
iframe{display:block;width:100%;height:2600px;border:0}</style></head>
<body><header>Acme CRM · Webhooks</header>
<iframe id="portal" title="Webhooks" src="${portalUrl}"></iframe>${extra}
<script>
  window.portalMessages = [];
  window.addEventListener('message', (event) => {
    if (event.origin !== ${JSON.stringify(serviceOrigin)}) return;
    window.portalMessages.push(event.data);
  });
</script></body></html>`;
}

/** The portal's messages the host page (of {@link hostHtml}) received so far. */
export const portalMessages = (page: Page) =>
  page.evaluate<Array<{ type: string } & Record<string, unknown>>>('window.portalMessages');

/** The first portal message of `type` the host page receives (waiting up to 20 s). */
export async function portalMessage(page: Page, type: string): Promise<Record<string, unknown>> {
  return until(`the portal's ${type} message`, async () =>
    (await portalMessages(page)).find((m) => m.type === type),
  );
}

/** The portal's frame of the host page `page`, once it has loaded. */
export async function portalFrame(page: Page): Promise<Frame> {
  const frame = await (await page.locator('#portal').elementHandle())!.contentFrame();
  if (!frame) throw new Error('the portal frame has no document');
  return frame;
}
