import type { INestApplication } from '@nestjs/common';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { DECORATORS, DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { IS_PUBLIC_KEY } from '../auth/public.decorator';

/** Request schemas that ignore unknown properties; every other schema is closed. */
const OPEN_SCHEMAS = new Set(['ApiKeyTokenRequest', 'LeadInput']);

/** Name of the bearer security scheme (`components.securitySchemes`). */
const BEARER_SCHEME = 'bearer';

/**
 * The licence of the document. The service is not licensed to anyone (`"license": "UNLICENSED"`
 * in package.json); OpenAPI 3.0 has no SPDX `identifier`, so the URL is npm's definition of
 * that value.
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
    'webhooks',
    "Read-only inspection of a campaign's webhook event types and endpoints, with delivery health.",
  ],
];

/**
 * The OpenAPI 3 document of the whole `/api/v1` surface (docs/operations.md), built from the
 * controllers' and DTOs' decorators. Response schemas are closed (`additionalProperties:
 * false`), so a field added to a response without documenting it fails the conformance tests.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Campaign API')
    .setDescription(
      'Lead upload, API-key token exchange and read-only webhook endpoint inspection. Exchange an API key at ' +
        '`POST /api/v1/auth/api-key/token`, then send `Authorization: Bearer <access_token>`. Every error is ' +
        '`{"error", "message"}`.',
    )
    .setVersion('1.0.0')
    .setLicense(OPENAPI_LICENSE.name, OPENAPI_LICENSE.url)
    .addServer(OPENAPI_SERVER.url, OPENAPI_SERVER.description)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME);
  for (const [name, description] of TAGS) config.addTag(name, description);
  const document = SwaggerModule.createDocument(app, config.build());
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if (!OPEN_SCHEMAS.has(name) && 'properties' in schema) schema.additionalProperties = false;
  }
  documentSecurity(document, publicOperationIds(app));
  return document;
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
