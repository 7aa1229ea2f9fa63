import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

/** Request schemas that ignore unknown properties; every other schema is closed. */
const OPEN_SCHEMAS = new Set(['ApiKeyTokenRequest', 'LeadInput']);

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
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if (!OPEN_SCHEMAS.has(name) && 'properties' in schema) schema.additionalProperties = false;
  }
  return document;
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
