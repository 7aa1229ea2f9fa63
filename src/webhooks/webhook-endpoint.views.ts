import type { SignatureScheme } from './signature-schemes.constants';
import { customHeaderViews, type CustomHeaderView } from './custom-headers';
import type {
  DisabledReason,
  EndpointOrdering,
  FailingReason,
  WebhookEndpoint,
} from './webhook-endpoint.entity';

/** A webhook endpoint as listed (docs/api.md#webhook-reads): never a secret or a hint of one. */
export interface WebhookEndpointView {
  id: number;
  campaign_id: number;
  url: string;
  description: string | null;
  subscribed_events: string[];
  is_enabled: boolean;
  /** ISO 8601 UTC. */
  created_at: string;
  /** Outcome of the most recent delivery attempt; null before the first. */
  last_delivery_is_successful: boolean | null;
}

/** Delivery health of one endpoint (docs/api.md#webhook-reads). Counts attempts, pings included. */
export interface WebhookEndpointHealthView {
  endpoint_id: number;
  url: string;
  is_enabled: boolean;
  total_deliveries: number;
  successful_deliveries: number;
  failed_deliveries: number;
  /** successful / total in [0, 1]; null with no attempts. */
  success_rate: number | null;
  /** ISO 8601 UTC start of the latest attempt; null with none. */
  last_delivery_at: string | null;
  last_delivery_is_successful: boolean | null;
  /** Mean attempt duration in ms, rounded to 3 decimals (1 µs); null with no attempts. */
  avg_duration_ms: number | null;
}

/** The health figures of an endpoint, without its identity (they sit inside {@link WebhookEndpointDetail}). */
export type EndpointHealthFigures = Omit<
  WebhookEndpointHealthView,
  'endpoint_id' | 'url' | 'is_enabled'
>;

/**
 * An endpoint as the dashboard shows it (docs/dashboard.md#routes): the listing view, its
 * delivery health, until when the previous signing secret stays valid after a rotation, why
 * and since when it is disabled, and its signature scheme with its public keys (not secrets).
 * Never a secret.
 */
export interface WebhookEndpointDetail extends WebhookEndpointView {
  health: EndpointHealthFigures;
  /** ISO 8601 UTC; null when no previous secret is valid. */
  previous_secret_expires_at: string | null;
  /**
   * Why it is disabled (docs/webhooks.md#disabled-endpoints): `manual`, `gone` (it answered
   * 410 Gone) or `auto`; null while enabled.
   */
  disabled_reason: DisabledReason | null;
  /** When it was disabled, ISO 8601 UTC; null while enabled. */
  disabled_at: string | null;
  /**
   * When it was last disabled, ISO 8601 UTC: `disabled_at` while it is disabled, and once it is
   * enabled again the `disabled_at` it had (docs/webhooks.md#replaying-missed-deliveries); null
   * when it has not been disabled since the service recorded it.
   */
  last_disabled_at: string | null;
  /** Why it was last disabled, like `last_disabled_at`; null with it. */
  last_disabled_reason: DisabledReason | null;
  /**
   * Since when it is failing (docs/webhooks.md#failing-endpoints), ISO 8601 UTC; null while it
   * is not.
   */
  failing_since: string | null;
  /** Why it is failing: `failure_rate` or `no_success`; null while it is not. */
  failing_reason: FailingReason | null;
  /**
   * When a failing endpoint will be disabled with the reason `auto` unless a delivery
   * succeeds first (`failing_since` + `WEBHOOK_DISABLE_AFTER`), ISO 8601 UTC; null while it is
   * not failing.
   */
  auto_disable_at: string | null;
  /**
   * How deliveries are signed (docs/webhooks.md#signing): `symmetric` (`v1,` HMAC with the
   * `whsec_` secret) or `asymmetric` (`v1a,` ed25519).
   */
  signature_scheme: SignatureScheme;
  /**
   * The `whpk_` public key receivers verify `v1a,` signatures with, while `asymmetric`; null
   * while `symmetric`. Not a secret.
   */
  public_key: string | null;
  /**
   * The `whpk_` public key of the previous key while it still signs (until
   * `previous_secret_expires_at`) and is an ed25519 key; null otherwise
   * (docs/webhooks.md#rotating-keys).
   */
  previous_public_key: string | null;

  /**
   * The headers sent with every request, in order (docs/webhooks.md#custom-headers): a secret
   * one's value masked.
   */
  custom_headers: CustomHeaderView[];
  /** Most deliveries per second (docs/webhooks.md#throttling); null: unlimited. */
  max_deliveries_per_second: number | null;
  /** Most attempts in flight at once; null: unlimited. */
  max_in_flight: number | null;
  /** Its deliveries' order (docs/webhooks.md#per-lead-ordering): `none` or `per_lead`. */
  ordering: EndpointOrdering;
  /**
   * Whether it comes back by itself once disabled `auto`
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves).
   */
  auto_recover: boolean;
  /** Its recovery probing while it is probed or has given up; null otherwise. */
  recovery_probe: RecoveryProbeView | null;
  /** Its payload filter (docs/webhooks.md#payload-filters); null: every event of its types. */
  filter: string | null;
}

/**
 * The recovery probing of an endpoint disabled `auto` that opted in
 * (docs/webhooks.md#endpoints-that-come-back-by-themselves). Times ISO 8601 UTC.
 */
export interface RecoveryProbeView {
  /** Since when it is probed: the probing window's start. */
  since: string;
  /** When the next probe is due; null once probing gave up. */
  next_probe_at: string | null;
  /** Probes sent so far. */
  probes: number;
  /** When the last probe was sent; null before the first. */
  last_probe_at: string | null;
  /** When probing gave up, its window over without a success; null while it goes on. */
  gave_up_at: string | null;
}

/** The endpoint's {@link RecoveryProbeView}: null when it is not probed and has not given up. */
export function recoveryProbeView(endpoint: WebhookEndpoint): RecoveryProbeView | null {
  if (!endpoint.probingSince || endpoint.isEnabled) return null;
  return {
    since: endpoint.probingSince.toISOString(),
    next_probe_at: endpoint.nextProbeAt ? endpoint.nextProbeAt.toISOString() : null,
    probes: endpoint.probeCount,
    last_probe_at: endpoint.lastProbeAt ? endpoint.lastProbeAt.toISOString() : null,
    gave_up_at: endpoint.probeGaveUpAt ? endpoint.probeGaveUpAt.toISOString() : null,
  };
}

/**
 * The dashboard's view of an endpoint; `now` decides whether the previous secret is still
 * valid, `disableAfterMs` (ms, `WEBHOOK_DISABLE_AFTER`) when a failing one will be disabled.
 */
export function toEndpointDetail(
  endpoint: WebhookEndpoint,
  now = new Date(),
  disableAfterMs = 5 * 86_400_000,
): WebhookEndpointDetail {
  const { endpoint_id: _id, url: _url, is_enabled: _enabled, ...health } = toHealthView(endpoint);
  const expires = endpoint.previousSecretExpiresAt;
  const previousValid = Boolean(endpoint.previousSecretEncrypted && expires && expires > now);
  return {
    ...toEndpointView(endpoint),
    health,
    previous_secret_expires_at:
      endpoint.previousSecretEncrypted && expires && expires > now ? expires.toISOString() : null,
    disabled_reason: endpoint.disabledReason,
    disabled_at: endpoint.disabledAt ? endpoint.disabledAt.toISOString() : null,
    ...lastDisabled(endpoint),
    failing_since: endpoint.failingSince ? endpoint.failingSince.toISOString() : null,
    failing_reason: endpoint.failingReason,
    auto_disable_at: endpoint.failingSince
      ? new Date(endpoint.failingSince.getTime() + disableAfterMs).toISOString()
      : null,
    signature_scheme: endpoint.signatureScheme,
    public_key: endpoint.publicKey,
    previous_public_key: previousValid ? endpoint.previousPublicKey : null,
    custom_headers: customHeaderViews(endpoint.customHeaders ?? []),
    max_deliveries_per_second: endpoint.maxDeliveriesPerSecond ?? null,
    max_in_flight: endpoint.maxInFlight ?? null,
    ordering: endpoint.ordering ?? 'none',
    auto_recover: endpoint.autoRecover ?? false,
    recovery_probe: recoveryProbeView(endpoint),
    filter: endpoint.filter ?? null,
  };
}

/** When and why the endpoint was last disabled: now, or in the period that ended last. */
function lastDisabled(
  endpoint: WebhookEndpoint,
): Pick<WebhookEndpointDetail, 'last_disabled_at' | 'last_disabled_reason'> {
  const at = endpoint.disabledAt ?? endpoint.lastDisabledAt;
  return {
    last_disabled_at: at ? at.toISOString() : null,
    last_disabled_reason: at ? (endpoint.disabledReason ?? endpoint.lastDisabledReason) : null,
  };
}

/** The listing view of an endpoint (docs/api.md#webhook-reads). */
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

/** The health view of an endpoint, computed from its counters in O(1) (docs/api.md#webhook-reads). */
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
    avg_duration_ms: total === 0 ? null : roundTo3(endpoint.totalDurationMs / total),
  };
}

/** Rounds to 3 decimals without binary noise (22.913250000000005 → 22.913). */
function roundTo3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
