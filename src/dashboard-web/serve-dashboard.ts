import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Where the browser app is served (docs/dashboard.md). */
export const DASHBOARD_BASE = '/dashboard/';
/** The dashboard's JSON API: never answered with the app's page. */
export const DASHBOARD_API_BASE = '/dashboard/api';

/**
 * The placeholder the build writes as the `nonce` of the tags it generates and of
 * `<meta property="csp-nonce">` (web/vite.config.ts declares the same value); every response of
 * the page replaces it with a fresh nonce.
 */
export const CSP_NONCE_PLACEHOLDER = '__CSP_NONCE__';

/**
 * The built app: `web/` builds into `dist/dashboard/` (`npm run build`). Both `src/dashboard-web`
 * (tests) and `dist/dashboard-web` (the compiled service) sit one level below the repository.
 */
export const DEFAULT_DASHBOARD_ROOT = resolve(__dirname, '..', '..', 'dist', 'dashboard');

/**
 * The dashboard page's Content-Security-Policy: scripts, styles, images, fonts and API calls from
 * the service's own origin only, no inline script at all, inline `<style>` only with the
 * response's nonce (Mantine's run-time CSS variables carry it), no plugins, no `<base>`, forms
 * only to itself, never framed.
 */
export function dashboardContentSecurityPolicy(nonce?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self'${nonce ? ` 'nonce-${nonce}'` : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The embedded portal page's Content-Security-Policy (docs/security.md#embedded-portal): the
 * dashboard's, but framed only by `frameAncestors` (`'none'` when empty) and showing images
 * from any `https:` URL (the theme's logo).
 */
export function portalContentSecurityPolicy(
  frameAncestors: readonly string[],
  nonce?: string,
): string {
  return dashboardContentSecurityPolicy(nonce)
    .replace("img-src 'self' data:", "img-src 'self' data: https:")
    .replace(
      "frame-ancestors 'none'",
      `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
    );
}

/** How one portal link's page may be framed: the origins allowed, and the one it talks to. */
export interface PortalPageFraming {
  frameAncestors: string[];
  parentOrigin: string;
}

/** Options of {@link dashboardWebPlugin}. */
export interface DashboardWebOptions {
  /** The built app's folder (its `index.html` and `assets/`); {@link DEFAULT_DASHBOARD_ROOT} by default. */
  root?: string;
  /**
   * How the portal page of link `id` may be framed (null: no such link); without it, no
   * portal page is served (`/portal/…` is 404).
   */
  portalFraming?: (id: string) => Promise<PortalPageFraming | null>;
}

/** Where an embedded portal's page is served: `/portal/<link id>` (docs/dashboard.md#embedding-the-portal). */
export const PORTAL_BASE = '/portal/';

/** Escapes `value` for an HTML attribute in double quotes. */
function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** `index.html` as last read, re-read when the file changes (a rebuild while the service runs). */
interface IndexCache {
  mtimeMs: number;
  html: string;
}

const NOT_BUILT_MESSAGE =
  'The dashboard is not available: this build of the service does not include its browser app (npm run build builds it into dist/dashboard/)';

/** Whether `pathname` is the dashboard API's (`/dashboard/api` or below). */
function isDashboardApi(pathname: string): boolean {
  return pathname === DASHBOARD_API_BASE || pathname.startsWith(`${DASHBOARD_API_BASE}/`);
}

/** A URL path's last segment looks like a file name (`favicon.svg`, `app.js`), not an app page. */
function looksLikeFile(path: string): boolean {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return /\.[A-Za-z0-9]{1,8}$/.test(last);
}

/**
 * Serves the dashboard's browser app, as a Fastify plugin (outside Nest's `/api/v1` prefix):
 * - `GET /dashboard` redirects (301) to `/dashboard/`;
 * - `/dashboard/assets/*`: the build's content-hashed files, cached for a year (`immutable`),
 *   precompressed (`.br`, `.gz`) when the client accepts it;
 * - any other file at the top of the build (`favicon.svg`): served, revalidated on every use;
 * - any other `GET /dashboard/...` that is not under `/dashboard/api/` and does not look like a
 *   file: `index.html` (a deep link or a reload), `Cache-Control: no-cache`, with a fresh CSP
 *   nonce in the page and in its {@link dashboardContentSecurityPolicy};
 * - a missing file, and any unknown `/dashboard/api/...` URL: the service's own 404 envelope;
 * - without a built app (no `index.html`): 503 `service_unavailable` in the envelope.
 * Every response of these routes carries the dashboard's CSP instead of the API's.
 */
export async function dashboardWebPlugin(
  fastify: FastifyInstance,
  options: DashboardWebOptions,
): Promise<void> {
  const root = options.root ?? DEFAULT_DASHBOARD_ROOT;
  const indexPath = join(root, 'index.html');
  let cache: IndexCache | null = null;

  async function indexHtml(): Promise<string | null> {
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(indexPath)).mtimeMs;
    } catch {
      cache = null;
      return null;
    }
    if (cache?.mtimeMs !== mtimeMs) cache = { mtimeMs, html: await readFile(indexPath, 'utf8') };
    return cache.html;
  }

  // After helmet's onRequest (registered earlier, at the root): this policy replaces the API's,
  // except on the 404 of an unknown dashboard API URL, which stays an API answer.
  fastify.addHook('onRequest', async (request, reply) => {
    if (isDashboardApi(request.url.split('?', 1)[0])) return;
    void reply
      .header('content-security-policy', dashboardContentSecurityPolicy())
      // Never framed: what frame-ancestors 'none' says, for browsers that only read this.
      .header('x-frame-options', 'DENY');
  });

  fastify.get('/dashboard', async (request, reply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(DASHBOARD_BASE + (query === -1 ? '' : request.url.slice(query)), 301);
  });

  await fastify.register(fastifyStatic, {
    root: join(root, 'assets'),
    prefix: `${DASHBOARD_BASE}assets/`,
    // Files are looked up when asked for, so a rebuild's new names are found without a restart.
    wildcard: true,
    index: false,
    dotfiles: 'ignore',
    preCompressed: true,
    immutable: true,
    maxAge: '365d',
    suppressWarning: true,
  });

  async function sendIndex(reply: FastifyReply): Promise<FastifyReply> {
    const html = await indexHtml();
    if (html === null) {
      return reply
        .status(503)
        .header('cache-control', 'no-store')
        .header('content-type', 'application/json; charset=utf-8')
        .send({ error: 'service_unavailable', message: NOT_BUILT_MESSAGE });
    }
    const nonce = randomBytes(16).toString('base64');
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', dashboardContentSecurityPolicy(nonce))
      .send(html.replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
  }

  /**
   * The embedded portal's page (docs/dashboard.md#embedding-the-portal): the same app, which
   * reads the link's secret from the URL's fragment. A query string of any kind is refused
   * with 400 and the page is not served (a secret must never travel where servers and logs see
   * it); an unknown link is 404. Framed only by the account's portal origins, without
   * `X-Frame-Options`; the page learns the origin it talks to from `<meta name="portal-parent-origin">`.
   */
  fastify.get('/portal/:id', async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('cache-control', 'no-store');
    if (request.url.includes('?')) {
      return reply.status(400).header('content-type', 'application/json; charset=utf-8').send({
        error: 'bad_request',
        message:
          'The portal URL takes no query string: the link’s secret goes in the fragment (#…), never in the query',
      });
    }
    const { id } = request.params as { id: string };
    const framing = options.portalFraming ? await options.portalFraming(id) : null;
    if (framing === null) return reply.callNotFound();
    const html = await indexHtml();
    if (html === null) return sendIndex(reply);
    const nonce = randomBytes(16).toString('base64');
    const meta = `<meta name="portal-parent-origin" content="${attribute(framing.parentOrigin)}">`;
    reply.removeHeader('x-frame-options');
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', portalContentSecurityPolicy(framing.frameAncestors, nonce))
      .header('referrer-policy', 'no-referrer')
      .send(html.replaceAll(CSP_NONCE_PLACEHOLDER, nonce).replace('</head>', `${meta}</head>`));
  });

  fastify.get('/dashboard/*', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = (request.params as { '*': string })['*'];
    const pathname = `/dashboard/${path}`;
    if (isDashboardApi(pathname)) return reply.callNotFound();
    if (!looksLikeFile(path)) return sendIndex(reply);
    // A file at the top of the build (favicon.svg, robots.txt); never a dotfile nor a folder.
    if (path.includes('/') || path.startsWith('.') || path === 'index.html') {
      return path === 'index.html' ? sendIndex(reply) : reply.callNotFound();
    }
    if (!existsSync(join(root, path))) return reply.callNotFound();
    void reply.header('cache-control', 'no-cache');
    return reply.sendFile(path, root, { cacheControl: false, dotfiles: 'ignore', index: false });
  });
}

/**
 * Serves the dashboard's browser app ({@link dashboardWebPlugin}) on the application's Fastify
 * instance, outside Nest's global prefix, with the embedded portal's page when `options` says
 * how to frame it. Call once from `createApp`, after helmet.
 */
export async function installDashboardWeb(
  app: NestFastifyApplication,
  options: DashboardWebOptions = {},
): Promise<void> {
  await app.getHttpAdapter().getInstance().register(dashboardWebPlugin, options);
}
