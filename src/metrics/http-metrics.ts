import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.service';

/** The `route` label of a request no route served (a 404 of an unknown URL). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every answered request of the public port into
 * `campaign_api_http_request_duration_seconds` (docs/operations.md#metrics), labelled by the
 * route's template as Fastify registered it (`/api/v1/webhooks/:campaignId/endpoints`), never
 * the URL, so that ids and query strings never become label values.
 */
export function installHttpMetrics(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    metrics.recordHttpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
