import type { Attributes, AttributeValue, SpanStatus } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace';
import {
  API_KEY_PREFIX,
  SIGNING_KEY_PREFIX,
  SIGNING_SECRET_PREFIX,
} from '../common/secret-prefixes';

/** Attribute names never exported, whatever their value: headers and fields that carry secrets. */
const SECRET_NAME =
  /authorization|cookie|signature|secret|password|passwd|token|api[_.-]?key|session/i;

/** Attributes that hold a URL or a path: exported without their query string. */
const URL_NAMES = new Set(['url.full', 'url.path', 'url.original', 'http.url', 'http.target']);

/** Attributes never exported: the query string (it may carry a key, a token or a lead's contact). */
const DROPPED_NAMES = new Set(['url.query', 'exception.message']);

/** A JWT anywhere in a value (`eyJ…` header, claims and signature). */
const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;

/** The value that replaces a secret-looking string. */
export const REDACTED = '[redacted]';

function redactString(name: string, value: string): string | undefined {
  if (DROPPED_NAMES.has(name)) return undefined;
  let text = value;
  if (URL_NAMES.has(name)) {
    const query = text.indexOf('?');
    if (query !== -1) text = text.slice(0, query);
  }
  if (name === 'exception.stacktrace') {
    // The frames only: the first lines are the error's message, which may quote input.
    const frames = text.indexOf('\n    at ');
    text = frames === -1 ? '' : text.slice(frames + 1);
  }
  if (
    text.includes(API_KEY_PREFIX) ||
    text.includes(SIGNING_SECRET_PREFIX) ||
    text.includes(SIGNING_KEY_PREFIX) ||
    JWT.test(text)
  ) {
    return REDACTED;
  }
  return text;
}

function scrubValue(name: string, value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return redactString(name, value);
  if (Array.isArray(value)) {
    return value.map((item) =>
      typeof item === 'string' ? (redactString(name, item) ?? REDACTED) : item,
    ) as AttributeValue;
  }
  return value;
}

/**
 * The attributes of a span, an event or a link as they may leave the process
 * (docs/operations.md#what-traces-never-hold): names that carry secrets (`authorization`,
 * `cookie`, `*signature*`, `*token*`, …) and the query string (`url.query`) dropped; URLs and
 * paths cut at `?`; an exception's message dropped and its stack trace kept from the first
 * frame; any string holding an API key (`capi_`), a signing secret (`whsec_`), an ed25519 secret
 * key (`whsk_`) or a JWT replaced
 * by `[redacted]`. Pure; returns a new object.
 */
export function scrubAttributes(attributes: Attributes | undefined): Attributes {
  const scrubbed: Attributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (SECRET_NAME.test(name)) continue;
    const kept = scrubValue(name, value);
    if (kept !== undefined) scrubbed[name] = kept;
  }
  return scrubbed;
}

/** A span's status without its message (an error's message may quote input). */
function scrubStatus(status: SpanStatus): SpanStatus {
  return { code: status.code };
}

/** `span` as it may leave the process: see {@link scrubAttributes}; the status without its message. */
export function scrubSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: scrubStatus(span.status),
    attributes: scrubAttributes(span.attributes),
    links: span.links.map((link) => ({ ...link, attributes: scrubAttributes(link.attributes) })),
    events: span.events.map((event): TimedEvent => ({
      ...event,
      attributes: scrubAttributes(event.attributes),
    })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/**
 * The last line of defence before spans leave the process: hands the exporter configured by
 * the `OTEL_*` variables every span through {@link scrubSpan}. The instrumentations are set up
 * not to record such data in the first place (src/tracing/otel-sdk.ts).
 */
export class ScrubbingSpanExporter implements SpanExporter {
  constructor(private readonly exporter: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.exporter.export(spans.map(scrubSpan), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}
