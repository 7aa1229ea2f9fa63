import type { WebhookEndpoint } from './webhook-endpoint.entity';

/** A webhook endpoint as listed by the API (spec 2.7, CONTRACT 5): never a secret or a hint of one. */
export interface WebhookEndpointView {
  id: number;
  campaign_id: number;
  url: string;
  description: string | null;
  subscribed_events: string[];
  is_enabled: boolean;
  /** ISO 8601 UTC. */
  created_at: string;
  last_delivery_is_successful: boolean | null;
}

/** Delivery health of one endpoint (spec 2.8, CONTRACT 5). Counts attempts, pings included. */
export interface WebhookEndpointHealthView {
  endpoint_id: number;
  url: string;
  is_enabled: boolean;
  total_deliveries: number;
  successful_deliveries: number;
  failed_deliveries: number;
  /** successful / total in [0, 1]; null with no attempts. */
  success_rate: number | null;
  last_delivery_at: string | null;
  last_delivery_is_successful: boolean | null;
  /** Mean attempt duration in ms; null with no attempts. */
  avg_duration_ms: number | null;
}

/** The 2.7 view of an endpoint. */
export function toEndpointView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id,
    campaign_id: endpoint.campaignId,
    url: endpoint.url,
    description: endpoint.description,
    subscribed_events: endpoint.subscribedEvents,
    is_enabled: endpoint.isEnabled,
    created_at: endpoint.createdAt.toISOString(),
    last_delivery_is_successful: endpoint.lastDeliveryIsSuccessful,
  };
}

/** The 2.8 view of an endpoint, computed from its counters in O(1). */
export function toHealthView(endpoint: WebhookEndpoint): WebhookEndpointHealthView {
  const total = endpoint.totalDeliveries;
  return {
    endpoint_id: endpoint.id,
    url: endpoint.url,
    is_enabled: endpoint.isEnabled,
    total_deliveries: total,
    successful_deliveries: endpoint.successfulDeliveries,
    failed_deliveries: endpoint.failedDeliveries,
    success_rate: total === 0 ? null : endpoint.successfulDeliveries / total,
    last_delivery_at: endpoint.lastDeliveryAt ? endpoint.lastDeliveryAt.toISOString() : null,
    last_delivery_is_successful: endpoint.lastDeliveryIsSuccessful,
    avg_duration_ms: total === 0 ? null : endpoint.totalDurationMs / total,
  };
}
