import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { toEndpointDetail } from './webhook-endpoint.views';

const now = new Date('2026-11-23T12:00:00.000Z');

function endpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: 7,
    campaignId: 3,
    url: 'https://crm.example.com/hooks',
    description: 'CRM',
    subscribedEvents: ['lead.created'],
    isEnabled: true,
    disabledReason: null,
    disabledAt: null,
    lastDisabledAt: null,
    lastDisabledReason: null,
    failingSince: null,
    failingReason: null,
    secretEncrypted: 'v1:secret',
    previousSecretEncrypted: null,
    previousSecretExpiresAt: null,
    createdAt: new Date('2026-11-20T08:00:00.000Z'),
    updatedAt: new Date('2026-11-20T08:00:00.000Z'),
    totalDeliveries: 2,
    successfulDeliveries: 1,
    failedDeliveries: 1,
    totalDurationMs: 30.5,
    lastDeliveryAt: new Date('2026-11-23T11:00:00.000Z'),
    lastDeliveryIsSuccessful: false,
    signatureScheme: 'symmetric',
    publicKey: null,
    previousPublicKey: null,
    autoRecover: false,
    probingSince: null,
    nextProbeAt: null,
    probeCount: 0,
    lastProbeAt: null,
    probeGaveUpAt: null,
    ...overrides,
  } as WebhookEndpoint;
}

describe('the dashboard view of an endpoint', () => {
  it('carries the listing fields and the health figures, never a secret', () => {
    const detail = toEndpointDetail(endpoint(), now);
    expect(detail).toEqual({
      id: 7,
      campaign_id: 3,
      url: 'https://crm.example.com/hooks',
      description: 'CRM',
      subscribed_events: ['lead.created'],
      is_enabled: true,
      created_at: '2026-11-20T08:00:00.000Z',
      last_delivery_is_successful: false,
      health: {
        total_deliveries: 2,
        successful_deliveries: 1,
        failed_deliveries: 1,
        success_rate: 0.5,
        last_delivery_at: '2026-11-23T11:00:00.000Z',
        last_delivery_is_successful: false,
        avg_duration_ms: 15.25,
      },
      previous_secret_expires_at: null,
      disabled_reason: null,
      disabled_at: null,
      last_disabled_at: null,
      last_disabled_reason: null,
      failing_since: null,
      failing_reason: null,
      auto_disable_at: null,
      signature_scheme: 'symmetric',
      public_key: null,
      previous_public_key: null,
      custom_headers: [],
      max_deliveries_per_second: null,
      max_in_flight: null,
      ordering: 'none',
      auto_recover: false,
      recovery_probe: null,
      filter: null,
    });
    expect(JSON.stringify(detail)).not.toContain('secret"');
  });

  it('shows an asymmetric endpoint’s public keys: the current one, and the previous one only while it still signs', () => {
    const keys = {
      signatureScheme: 'asymmetric' as const,
      publicKey: 'whpk_current',
      previousPublicKey: 'whpk_previous',
      previousSecretEncrypted: 'v1:old',
    };
    const during = toEndpointDetail(
      endpoint({ ...keys, previousSecretExpiresAt: new Date('2026-11-24T10:00:00.000Z') }),
      now,
    );
    expect(during).toMatchObject({
      signature_scheme: 'asymmetric',
      public_key: 'whpk_current',
      previous_public_key: 'whpk_previous',
      previous_secret_expires_at: '2026-11-24T10:00:00.000Z',
    });
    const after = toEndpointDetail(
      endpoint({ ...keys, previousSecretExpiresAt: new Date('2026-11-23T11:59:59.000Z') }),
      now,
    );
    expect(after).toMatchObject({ public_key: 'whpk_current', previous_public_key: null });
    expect(JSON.stringify(during)).not.toContain('v1:');
  });

  it('shows until when the previous secret is valid, and nothing once it has expired', () => {
    const rotated = { previousSecretEncrypted: 'v1:old' };
    expect(
      toEndpointDetail(
        endpoint({ ...rotated, previousSecretExpiresAt: new Date('2026-11-24T10:00:00.000Z') }),
        now,
      ).previous_secret_expires_at,
    ).toBe('2026-11-24T10:00:00.000Z');
    expect(
      toEndpointDetail(
        endpoint({ ...rotated, previousSecretExpiresAt: new Date('2026-11-23T11:59:59.000Z') }),
        now,
      ).previous_secret_expires_at,
    ).toBeNull();
  });

  it('says why and since when a disabled endpoint is disabled', () => {
    const detail = toEndpointDetail(
      endpoint({
        isEnabled: false,
        disabledReason: 'gone',
        disabledAt: new Date('2026-11-23T11:30:00.000Z'),
      }),
      now,
    );
    expect(detail).toMatchObject({
      is_enabled: false,
      disabled_reason: 'gone',
      disabled_at: '2026-11-23T11:30:00.000Z',
      last_disabled_reason: 'gone',
      last_disabled_at: '2026-11-23T11:30:00.000Z',
    });
  });

  it('keeps when and why it was last disabled once it is enabled again, and shows a new period while disabled', () => {
    const before = { lastDisabledAt: new Date('2026-11-22T08:00:00.000Z') };
    const enabled = toEndpointDetail(endpoint({ ...before, lastDisabledReason: 'auto' }), now);
    expect(enabled).toMatchObject({
      is_enabled: true,
      disabled_reason: null,
      disabled_at: null,
      last_disabled_reason: 'auto',
      last_disabled_at: '2026-11-22T08:00:00.000Z',
    });
    const again = toEndpointDetail(
      endpoint({
        ...before,
        lastDisabledReason: 'auto',
        isEnabled: false,
        disabledReason: 'manual',
        disabledAt: new Date('2026-11-23T11:30:00.000Z'),
      }),
      now,
    );
    expect(again).toMatchObject({
      last_disabled_reason: 'manual',
      last_disabled_at: '2026-11-23T11:30:00.000Z',
    });
  });

  it('carries the throttle as set, null for no limit', () => {
    const detail = toEndpointDetail(endpoint({ maxDeliveriesPerSecond: 5, maxInFlight: null }));
    expect(detail).toMatchObject({ max_deliveries_per_second: 5, max_in_flight: null });
  });
});
