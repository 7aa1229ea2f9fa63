import { loadConfig } from '../config/app-config';
import { attemptOutcomeClass, Metrics, statusClass } from './metrics.service';

describe('Metrics (docs/operations.md#metrics)', () => {
  it.each([
    [{ success: true, statusCode: 204, error: null }, 'success'],
    [{ success: false, statusCode: 301, error: 'HTTP 301' }, '3xx'],
    [{ success: false, statusCode: 429, error: 'HTTP 429' }, '4xx'],
    [{ success: false, statusCode: 503, error: 'HTTP 503' }, '5xx'],
    [{ success: false, statusCode: 102, error: 'HTTP 102' }, 'other'],
    [{ success: false, statusCode: null, error: 'timed out after 10000 ms' }, 'timeout'],
    [{ success: false, statusCode: null, error: 'ECONNREFUSED 127.0.0.1:9' }, 'connection_error'],
    [{ success: false, statusCode: null, error: 'could not sign: bad secret' }, 'other'],
  ])('classes the attempt %j as %s', (attempt, outcome) => {
    expect(attemptOutcomeClass(attempt)).toBe(outcome);
  });

  it('classes statuses by hundreds', () => {
    expect([100, 200, 299, 302, 404, 500, 599, 700].map(statusClass)).toEqual([
      '1xx',
      '2xx',
      '2xx',
      '3xx',
      '4xx',
      '5xx',
      '5xx',
      '5xx',
    ]);
  });

  it('counts leads, attempts and request durations into its own registry', async () => {
    const metrics = new Metrics();
    metrics.recordLeads('api', {
      received_count: 5,
      valid_count: 4,
      invalid_count: 1,
      duplicate_count: 2,
    });
    metrics.recordAttempts([
      { success: true, statusCode: 200, error: null, durationMs: 20, lagMs: 1500 },
      { success: false, statusCode: 500, error: 'HTTP 500', durationMs: 30, lagMs: null },
    ]);
    metrics.recordAbandonedAttempts(2);
    metrics.recordHttpRequest('GET', '/api/v1/leads/:id', 200, 0.004);
    const text = (await metrics.exposition()).body;
    expect(text).toContain('campaign_api_leads_received_total{source="api"} 5');
    expect(text).toContain('campaign_api_leads_duplicate_total{source="api"} 2');
    expect(text).toContain('campaign_api_delivery_attempts_total{outcome="success"} 1');
    expect(text).toContain('campaign_api_delivery_attempts_total{outcome="5xx"} 1');
    expect(text).toContain('campaign_api_delivery_attempts_total{outcome="other"} 2');
    expect(text).toContain('campaign_api_delivery_attempt_duration_seconds_sum 0.05');
    expect(text).toContain('campaign_api_delivery_lag_seconds_count 1');
    expect(text).toContain(
      'campaign_api_http_request_duration_seconds_count{method="GET",route="/api/v1/leads/:id",status_class="2xx"} 1',
    );
    // Without METRICS_PORT, no runtime metrics are collected.
    expect(text).not.toContain('nodejs_');
  });

  it('records nothing without METRICS_PORT, when nothing could read it', async () => {
    const metrics = new Metrics(loadConfig({}));
    metrics.recordLeads('api', {
      received_count: 5,
      valid_count: 4,
      invalid_count: 1,
      duplicate_count: 2,
    });
    metrics.recordAttempts([
      { success: true, statusCode: 200, error: null, durationMs: 20, lagMs: 1500 },
    ]);
    metrics.recordHttpRequest('GET', '/api/v1/leads/:id', 200, 0.004);
    const text = (await metrics.exposition()).body;
    expect(metrics.recording).toBe(false);
    expect(text).not.toContain('campaign_api_leads_received_total{source="api"} 5');
    expect(text).not.toContain('campaign_api_delivery_attempts_total{outcome="success"} 1');
    expect(text).not.toContain('campaign_api_http_request_duration_seconds_count{');
    expect(new Metrics(loadConfig({ METRICS_PORT: '9464' })).recording).toBe(true);
  });
});
