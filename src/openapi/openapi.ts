import type { INestApplication, Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { DECORATORS, DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { IS_PUBLIC_KEY } from '../auth/public.decorator';
import {
  DASHBOARD_ACCESS_KEY,
  DASHBOARD_API_PREFIX,
  type DashboardAccessLevel,
} from '../dashboard-kernel/dashboard-access';
import { dashboardErrorResponseObject } from '../dashboard-kernel/dashboard-error-responses';
import { DASHBOARD_OPENAPI_JSON_PATH } from '../dashboard-kernel/dashboard-routes';
import { addWebhooks, WEBHOOK_EVENTS_TAG } from './webhooks';

/** Request schemas that ignore unknown properties; every other schema is closed. */
const OPEN_SCHEMAS = new Set(['ApiKeyTokenRequest', 'LeadInput']);

/** Name of the bearer security scheme (`components.securitySchemes`). */
const BEARER_SCHEME = 'bearer';

/**
 * The licence of the documents. The service is not licensed to anyone (`"license": "UNLICENSED"`
 * in package.json), which is no SPDX `identifier`, so the URL is npm's definition of that value.
 */
export const OPENAPI_LICENSE = {
  name: 'Proprietary',
  url: 'https://docs.npmjs.com/cli/configuring-npm/package-json#license',
};

/**
 * The server every path is relative to: the deployment serving the document (`/api/docs-json`),
 * since a deployment's public URL is not part of its configuration.
 */
export const OPENAPI_SERVER = {
  url: '/',
  description: 'The deployment serving this document; every path includes its /api/v1 prefix.',
};

/** The operations' tags, described. */
const TAGS: Array<[name: string, description: string]> = [
  ['auth', 'Exchange an API key for a short-lived bearer token. Needs no token.'],
  ['leads', 'Upload batches of leads into a campaign of the calling account.'],
  [
    'privacy',
    "Erase a person (by phone and/or email) from the calling account, and read the erasure's receipt.",
  ],
  [
    'portal',
    'Mint and revoke single-use links to the embeddable dashboard portal for your own users.',
  ],
  [
    'webhooks',
    "Read-only inspection of a campaign's webhook event types and endpoints, with delivery health.",
  ],
  [
    WEBHOOK_EVENTS_TAG,
    'What the service sends to your webhook endpoints (the `webhooks` section): one signed POST per event.',
  ],
];

/**
 * The OpenAPI version of both documents: 3.1, for the public one's `webhooks` section (the
 * dashboard's follows it, so both write nullable fields the same way).
 */
export const OPENAPI_VERSION = '3.1.0';

/**
 * The OpenAPI 3.1 document of the whole `/api/v1` surface (docs/operations.md), built from the
 * controllers' and DTOs' decorators (`@nestjs/swagger` writes 3.1: nullable fields as type
 * arrays), with the requests the service sends to webhook endpoints under `webhooks`
 * (docs/operations.md#openapi). Response schemas are closed (`additionalProperties: false`), so a
 * field added to a response without documenting it fails the conformance tests.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Campaign API')
    .setDescription(
      'Lead upload, API-key token exchange and read-only webhook endpoint inspection. Exchange an API key at ' +
        '`POST /api/v1/auth/api-key/token`, then send `Authorization: Bearer <access_token>`. Every error is ' +
        '`{"error", "message"}`.',
    )
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setVersion('1.0.0')
    .setLicense(OPENAPI_LICENSE.name, OPENAPI_LICENSE.url)
    .addServer(OPENAPI_SERVER.url, OPENAPI_SERVER.description)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME);
  for (const [name, description] of TAGS) config.addTag(name, description);
  // The dashboard API has a document of its own (buildDashboardOpenApiDocument).
  const document = SwaggerModule.createDocument(app, config.build(), {
    include: modulesBySurface(app).api,
  });
  closeSchemas(document, OPEN_SCHEMAS);
  documentSecurity(document, publicOperationIds(app));
  return addWebhooks(document);
}

/** Request schemas of the dashboard document that ignore unknown properties. */
const DASHBOARD_OPEN_SCHEMAS = new Set(['SignInRequest']);

/** Name of the dashboard's session cookie scheme (`components.securitySchemes`). */
const SESSION_SCHEME = 'session';

/** The dashboard document's tags, described. */
const DASHBOARD_TAGS: Array<[name: string, description: string]> = [
  ['session', 'Sign in, who am I, sign out. Sign-in attempts are limited per IP and per email.'],
  ['campaigns', "The account's campaigns; a campaign's webhook endpoints, and creating one."],
  [
    'endpoints',
    'One webhook endpoint: read, change, delete; its signing secret (reveal, rotate), test events and delivery log.',
  ],
  ['delivery-log', 'One attempt of a delivery log in detail; redelivering a delivery.'],
  [
    'event-types',
    'The seven event types, each with a description, an example payload and its JSON Schema.',
  ],
  ['api-keys', "The account's API keys: list, create (the key is shown once), revoke."],
  ['audit-log', "The account's sign-ins and changes, newest first."],
  ['portal', 'The embedded portal: exchanging a portal link once for a session held in memory.'],
];

/**
 * The OpenAPI 3.1 document of the dashboard API under `/dashboard/api` (docs/dashboard.md),
 * built from the controllers of the modules that serve it, and only them: the public document
 * ({@link buildOpenApiDocument}) leaves them out. Every operation but the sign-in needs the
 * session cookie; state-changing ones also the `X-CSRF-Token` header. Every operation may
 * answer `422` (an undocumented query parameter, docs/dashboard.md#requests-and-answers).
 */
export function buildDashboardOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Campaign API dashboard')
    .setDescription(
      'The JSON API of the customer dashboard, served under `/dashboard/api`. Sign in with ' +
        '`POST /dashboard/api/session` (header `X-CSRF-Token: sign-in`); the session is the ' +
        'HttpOnly cookie `campaign_api_session`. Every POST, PUT, PATCH and DELETE needs the ' +
        "session's `csrf_token` as `X-CSRF-Token` and must come from the dashboard's own origin. " +
        'Every error is `{"error", "message"}`.',
    )
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setVersion('1.0.0')
    .setLicense(OPENAPI_LICENSE.name, OPENAPI_LICENSE.url)
    .addServer(
      '/',
      'The deployment serving this document; every path includes its /dashboard/api prefix.',
    )
    .addCookieAuth('campaign_api_session', { type: 'apiKey', in: 'cookie' }, SESSION_SCHEME);
  for (const [name, description] of DASHBOARD_TAGS) config.addTag(name, description);
  const document = SwaggerModule.createDocument(app, config.build(), {
    include: modulesBySurface(app).dashboard,
  });
  closeSchemas(document, DASHBOARD_OPEN_SCHEMAS);
  const access = dashboardAccessByOperationId(app);
  for (const pathItem of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const) {
      const operation = pathItem[method];
      if (!operation) continue;
      operation.security =
        access.get(operation.operationId ?? '') === 'sign-in' ? [] : [{ [SESSION_SCHEME]: [] }];
      // Every dashboard route refuses a query parameter it does not document (422).
      operation.responses['422'] ??= dashboardErrorResponseObject(422);
    }
  }
  return document;
}

/** Serves the dashboard API's document at `GET /dashboard/api/docs-json` (no Swagger UI). */
export function serveDashboardOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('dashboard/api/docs', app, document, {
    jsonDocumentUrl: DASHBOARD_OPENAPI_JSON_PATH.slice(1),
    useGlobalPrefix: false,
    ui: false,
    raw: ['json'],
  });
}

/** Closes every schema with properties (`additionalProperties: false`) but the `open` ones. */
function closeSchemas(document: OpenAPIObject, open: ReadonlySet<string>): void {
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if (!open.has(name) && 'properties' in schema) schema.additionalProperties = false;
  }
}

/**
 * The application's modules that hold controllers, split by the surface they serve: `dashboard`
 * for those whose controllers are under `/dashboard/api/`, `api` for the others.
 * @throws Error for a module that mixes both (each document takes whole modules).
 */
function modulesBySurface(app: INestApplication): { api: Type[]; dashboard: Type[] } {
  const api = new Set<Type>();
  const dashboard = new Set<Type>();
  for (const moduleRef of app.get(ModulesContainer).values()) {
    const paths = [...moduleRef.controllers.values()].flatMap(({ metatype }) =>
      metatype ? [[Reflect.getMetadata(PATH_METADATA, metatype) as string | string[]].flat()] : [],
    );
    if (paths.length === 0) continue;
    const isDashboard = paths.map((list) =>
      list.every((path) => `/${path.replace(/^\//, '')}/`.startsWith(DASHBOARD_API_PREFIX)),
    );
    if (isDashboard.every(Boolean)) dashboard.add(moduleRef.metatype);
    else if (!isDashboard.some(Boolean)) api.add(moduleRef.metatype);
    else throw new Error(`${moduleRef.metatype.name} mixes dashboard and public API controllers`);
  }
  return { api: [...api], dashboard: [...dashboard] };
}

/** The access (`@DashboardAccess`) of every dashboard operation, by operation id. */
function dashboardAccessByOperationId(app: INestApplication): Map<string, DashboardAccessLevel> {
  const access = new Map<string, DashboardAccessLevel>();
  const scanner = new MetadataScanner();
  for (const moduleRef of app.get(ModulesContainer).values()) {
    for (const { metatype } of moduleRef.controllers.values()) {
      if (!metatype) continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as object;
        const level = Reflect.getMetadata(DASHBOARD_ACCESS_KEY, handler) as
          DashboardAccessLevel | undefined;
        if (level === undefined) continue;
        const operation = Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as
          { operationId?: string } | undefined;
        access.set(operation?.operationId ?? `${metatype.name}_${name}`, level);
      }
    }
  }
  return access;
}

/**
 * The operation ids of the routes marked `@Public()` on their method, the only ones the bearer
 * hook lets through without a token (docs/security.md#authentication-before-the-body). An
 * operation without an explicit `operationId` has Nest's default, `<Controller>_<method>`.
 */
function publicOperationIds(app: INestApplication): Set<string> {
  const ids = new Set<string>();
  const scanner = new MetadataScanner();
  for (const moduleRef of app.get(ModulesContainer).values()) {
    for (const { metatype } of moduleRef.controllers.values()) {
      if (!metatype) continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as object;
        if (Reflect.getMetadata(IS_PUBLIC_KEY, handler) !== true) continue;
        const operation = Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as
          { operationId?: string } | undefined;
        ids.add(operation?.operationId ?? `${metatype.name}_${name}`);
      }
    }
  }
  return ids;
}

/**
 * Gives every operation the security the service enforces: none (`security: []`, stated rather
 * than left out) for a public route, the bearer scheme for every other one, whether or not
 * its controller says `@ApiBearerAuth()`.
 */
function documentSecurity(document: OpenAPIObject, publicIds: Set<string>): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const) {
      const operation = pathItem[method];
      if (!operation) continue;
      operation.security = publicIds.has(operation.operationId ?? '')
        ? []
        : [{ [BEARER_SCHEME]: [] }];
    }
  }
}

/** Serves the document at `GET /api/docs-json` and Swagger UI at `/api/docs`. */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('api/docs', app, document, {
    jsonDocumentUrl: 'api/docs-json',
    useGlobalPrefix: false,
  });
}

/** The document as committed in `openapi.json`. */
export function serializeOpenApi(document: OpenAPIObject): string {
  return JSON.stringify(document, null, 2) + '\n';
}
