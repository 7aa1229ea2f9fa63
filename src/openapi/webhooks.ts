import type { OpenAPIObject } from '@nestjs/swagger';
import { EVENT_EXAMPLES } from '../webhooks/event-examples.constants';
import {
  EVENT_DESCRIPTIONS,
  EVENT_SCHEMA_NAMES,
  eventOpenApiSchemas,
  PING_SCHEMA_NAME,
  PING_TYPE,
} from '../webhooks/event-schemas.constants';
import { EVENT_TYPES } from '../webhooks/event-types.constants';

/** The tag of every entry of `webhooks`. */
export const WEBHOOK_EVENTS_TAG = 'webhook-events';

/** The Standard Webhooks headers of every delivery, as `components.parameters` entries. */
const WEBHOOK_HEADERS: Record<string, { name: string; description: string; schema: object }> = {
  WebhookId: {
    name: 'webhook-id',
    description:
      "The event's id: the same on every attempt and every endpoint of one event, so use it to " +
      'drop a repeat (`test_…` or `ping_…` for a test event).',
    schema: { type: 'string' },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    description: "When this attempt was signed, in Unix seconds; refuse one far from your clock's.",
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    description:
      'Space-separated signatures of `{webhook-id}.{webhook-timestamp}.{body}`: `v1,<base64>` ' +
      '(HMAC-SHA256 with the endpoint’s `whsec_` secret) or `v1a,<base64>` (ed25519). One valid ' +
      'signature is enough.',
    schema: { type: 'string' },
  },
};

const EXAMPLE_TIMESTAMP = '2026-11-22T23:10:54.279Z';

/**
 * Adds the OpenAPI 3.1 `webhooks` section to `document` (docs/operations.md#openapi): one entry per
 * event type and one for the test ping, each a `POST` whose `application/json` body is the type's
 * payload schema (`components.schemas`, generated from `src/webhooks/event-schemas.constants.ts`)
 * with its example, the three Standard Webhooks headers as parameters, no security of ours (the
 * request is signed instead) and `2XX` as the acknowledgement. Mutates and returns `document`.
 */
export function addWebhooks(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ??= {});
  Object.assign((components.schemas ??= {}), eventOpenApiSchemas());
  components.parameters = {
    ...components.parameters,
    ...Object.fromEntries(
      Object.entries(WEBHOOK_HEADERS).map(([key, header]) => [
        key,
        { in: 'header', required: true, ...header },
      ]),
    ),
  };
  const entries: Array<[name: string, schema: string, description: string, data: object]> = [
    ...EVENT_TYPES.map(
      (type) =>
        [type, EVENT_SCHEMA_NAMES[type], EVENT_DESCRIPTIONS[type], EVENT_EXAMPLES[type]] as [
          string,
          string,
          string,
          object,
        ],
    ),
    [
      PING_TYPE,
      PING_SCHEMA_NAME,
      'A test ping: sent only when asked for, from the dashboard or `endpoint ping`.',
      { endpoint_id: 7 },
    ],
  ];
  document.webhooks = Object.fromEntries(
    entries.map(([name, schema, description, data]) => [
      name,
      {
        post: {
          operationId: operationIdOf(schema),
          summary: `${name} event`,
          description: `${description} Sent to each endpoint subscribed to it, signed.`,
          tags: [WEBHOOK_EVENTS_TAG],
          security: [],
          parameters: Object.keys(WEBHOOK_HEADERS).map((key) => ({
            $ref: `#/components/parameters/${key}`,
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: `#/components/schemas/${schema}` },
                examples: {
                  [schema]: {
                    summary: `A ${name} body`,
                    value: { type: name, timestamp: EXAMPLE_TIMESTAMP, data },
                  },
                },
              },
            },
          },
          responses: {
            '2XX': {
              description:
                'Received: any 2xx status ends the delivery. Anything else, or no answer in time, ' +
                'is retried later.',
            },
          },
        },
      },
    ]),
  );
  return document;
}

/** `LeadCreatedEvent` → `leadCreated`: generators name the payload types after it. */
function operationIdOf(schemaName: string): string {
  const name = schemaName.replace(/Event$/, '');
  return name.charAt(0).toLowerCase() + name.slice(1);
}
