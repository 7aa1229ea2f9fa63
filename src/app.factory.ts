import { NestFactory } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { installRequestLogging } from './common/request-logging';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import {
  BODY_LIMIT_BYTES,
  generateRequestId,
  installHttpConventions,
  frameworkErrorHandler,
  clientErrorHandler,
} from './common/http-conventions';
import { installHttpDrain } from './common/http-drain';
import { installNoStore, installSecurityHeaders } from './common/security-headers';
import { installBearerAuthentication } from './auth/bearer-authentication.hook';
import { BearerAuthenticator } from './auth/bearer-authenticator.service';
import { RedisFailedAuthenticationLimiter } from './rate-limit/failed-authentication.limiter';
import {
  buildDashboardOpenApiDocument,
  buildOpenApiDocument,
  serveDashboardOpenApi,
  serveOpenApi,
} from './openapi/openapi';
import { installDashboardRouteCheck } from './dashboard-kernel/dashboard-routes';
import { DASHBOARD_API_PREFIX } from './dashboard-kernel/dashboard-access';
import { installDashboardWeb } from './dashboard-web/serve-dashboard';
import { PortalLinks } from './portal';
import { installHttpMetrics } from './metrics/http-metrics';
import { Metrics } from './metrics/metrics.service';

/** Prefix of every API route (docs/api.md#conventions). */
export const GLOBAL_PREFIX = 'api/v1';
/**
 * The routes served outside {@link GLOBAL_PREFIX}: the health checks
 * (docs/operations.md#health-checks) and everything under `/dashboard` (docs/dashboard.md).
 */
export const GLOBAL_PREFIX_EXCLUDED = [
  'health/live',
  'health/ready',
  'dashboard',
  'dashboard/{*path}',
];

/** helmet's options for the API: its defaults, with a CSP that lets Swagger UI load its assets. */
export const API_SECURITY_HEADERS = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      scriptSrc: ["'self'", "'unsafe-inline'"],
    },
  },
} as const;

/** The public API's token exchange, whose answer is a bearer token (docs/api.md#authentication). */
export const TOKEN_EXCHANGE_ROUTE = `/${GLOBAL_PREFIX}/auth/api-key/token`;

/**
 * Whether a response must never be stored by a cache (docs/security.md#responses-never-stored):
 * every response of the dashboard API (its session's CSRF token, signing secrets, new API keys
 * and an account's data; errors and unknown URLs under it too) and of the token exchange.
 */
export function isNoStoreRequest(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (route === TOKEN_EXCHANGE_ROUTE || route?.startsWith(DASHBOARD_API_PREFIX)) return true;
  const path = request.url.split('?', 1)[0];
  return path.startsWith(DASHBOARD_API_PREFIX) || `${path}/` === DASHBOARD_API_PREFIX;
}

/** Serves every route under {@link GLOBAL_PREFIX} but {@link GLOBAL_PREFIX_EXCLUDED}. */
export function applyGlobalPrefix(app: NestFastifyApplication): void {
  app.setGlobalPrefix(GLOBAL_PREFIX, { exclude: GLOBAL_PREFIX_EXCLUDED });
}

/**
 * The application's modules, routes and their metadata, without instantiating any provider or
 * controller (Nest's preview mode): enough for the OpenAPI document (`npm run openapi`), and
 * needs neither PostgreSQL nor Redis. Not to be initialised nor served.
 */
export async function createPreviewApp(config: AppConfig): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    new FastifyAdapter(),
    { preview: true, logger: false, abortOnError: false },
  );
  applyGlobalPrefix(app);
  return app;
}

/**
 * Builds the HTTP application exactly as production runs it (used by `main.ts` and the e2e
 * tests): Fastify with a 16 MiB body limit, request ids, the `/api/v1` prefix (health checks
 * and the dashboard excepted), the dashboard's route check (docs/dashboard.md#access-rules),
 * `Cache-Control: no-store` on the dashboard API and the token exchange
 * (docs/security.md#responses-never-stored) and JSON logs. The caller calls `listen` or `init` (and, for a server, installs
 * the signal handlers of `exitGracefullyOnSignals`).
 */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    genReqId: generateRequestId,
    requestIdHeader: false,
    return503OnClosing: true,
    // Long enough that an over-long id reaches the id check (400), not Fastify's 414.
    routerOptions: { maxParamLength: 1000 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // A request (headers and body) must arrive within HTTP_REQUEST_TIMEOUT_MS, or it gets 408
    // and its socket is closed (clientErrorHandler).
    requestTimeout: config.httpRequestTimeoutMs,
    http: {
      requestTimeout: config.httpRequestTimeoutMs,
      headersTimeout: Math.min(config.httpRequestTimeoutMs, 60_000),
      // Node checks those timeouts only this often (30 s by default), so the bound holds.
      connectionsCheckingInterval: Math.min(1000, Math.floor(config.httpRequestTimeoutMs / 2)),
      // A missing Host is answered in the envelope by the onRequest hook, not by Node's bare 400.
      requireHostHeader: false,
    },
  });
  // First, so that every later hook, guard and handler runs as the request's code.
  installRequestLogging(adapter.getInstance(), {
    sampleRate: config.logRequestSampleRate,
    slowMs: config.logSlowRequestMs,
  });
  installHttpConventions(adapter.getInstance());
  // Security headers on every response, 401s included (docs/operations.md#security-headers-and-cors).
  installSecurityHeaders(adapter.getInstance(), API_SECURITY_HEADERS);
  // Nothing of the dashboard API or the token exchange is stored by a cache, errors included
  // (docs/security.md#responses-never-stored).
  installNoStore(adapter.getInstance(), isNoStoreRequest);
  installHttpDrain(adapter.getInstance());
  // Before any route exists: an undeclared dashboard route stops the start (docs/dashboard.md#access-rules).
  installDashboardRouteCheck(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bufferLogs: true,
    // Errors surface to the caller (one line at start, optional look-ups at shutdown), never process.exit.
    abortOnError: false,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  // Nest's own start-up lines so far, buffered until the logger was set: written now, so they
  // come before the lines below rather than when `init` or `listen` flushes them.
  app.flushLogs();
  installBearerAuthentication(
    adapter.getInstance(),
    app.get(BearerAuthenticator),
    app.get(RedisFailedAuthenticationLimiter),
  );
  // Request durations by route template (docs/operations.md#metrics); no hook when off.
  const metrics = app.get(Metrics);
  if (metrics.recording) installHttpMetrics(adapter.getInstance(), metrics);
  applyGlobalPrefix(app);
  if (config.corsOrigins.length > 0) {
    // Never for the dashboard API: it allows no cross-origin request
    // (docs/dashboard.md#cross-site-request-forgery).
    app.enableCors({
      delegator: (request, callback) =>
        callback(null, {
          origin: request.url.startsWith(DASHBOARD_API_PREFIX) ? false : config.corsOrigins,
        }),
    });
  }
  serveOpenApi(app, buildOpenApiDocument(app));
  serveDashboardOpenApi(app, buildDashboardOpenApiDocument(app));
  // The browser app at /dashboard/ (docs/dashboard.md#the-browser-app), and the embedded
  // portal's page at /portal/<id> (docs/dashboard.md#embedding-the-portal).
  const portals = app.get(PortalLinks);
  await installDashboardWeb(app, { portalFraming: (id) => portals.framingOf(id) });
  for (const warning of config.warnings) logger.warn(warning, 'Config');
  return app;
}
