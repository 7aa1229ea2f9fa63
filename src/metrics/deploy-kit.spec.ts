import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { DiscoveryService } from '@nestjs/core';
import { loadConfig } from '../config/app-config';
import { Metrics, METRIC_PREFIX } from './metrics.service';
import type { OperationalStateRepository } from './operational-state.repository';
import { OperationalGauges } from './operational-gauges.service';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** The series names the service exports, read from a registry as the API process builds it. */
function exportedNames(): { names: Set<string>; metrics: Array<{ name: string; type: string }> } {
  const metrics = new Metrics(loadConfig({ METRICS_PORT: '9464' }));
  // Registers the scrape-time gauges; nothing is looked up until a scrape.
  new OperationalGauges(metrics, {} as OperationalStateRepository, {} as DiscoveryService);
  const all = metrics.registry.getMetricsAsArray().map((m) => ({
    name: m.name,
    type: String(m.type),
  }));
  const names = new Set<string>();
  for (const { name, type } of all) {
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  metrics.registry.clear();
  return { names, metrics: all };
}

/** PromQL functions, aggregations and keywords the deploy kit may use. */
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'rate',
  'increase',
  'delta',
  'histogram_quantile',
  'vector',
  'and',
  'or',
  'unless',
  'on',
  'by',
  'without',
  'ignoring',
  'bool',
]);
/** Series Prometheus itself makes for every target. */
const PROMETHEUS_SERIES = new Set(['up']);

/**
 * The metric names an expression reads: label matchers, ranges, grouping clauses and strings
 * removed, what is left that is neither a number, a keyword nor a function call.
 */
function namesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?/g)) {
    const word = match[0].replace(/\s*\($/, '');
    if (/^\d/.test(word) || /^e\d+$/.test(word)) continue;
    if (match[1] !== undefined || PROMQL_WORDS.has(word)) {
      expect(PROMQL_WORDS).toContain(word);
      continue;
    }
    names.push(word);
  }
  return names;
}

describe('Metric names (docs/operations.md#metrics)', () => {
  it('follow Prometheus conventions: prefix, _total counters, units in histogram names', () => {
    const ours = exportedNames().metrics.filter((m) => m.name.startsWith(METRIC_PREFIX));
    expect(ours.length).toBeGreaterThan(20);
    for (const { name, type } of ours) {
      expect(name).toMatch(/^campaign_api_[a-z0-9_]+$/);
      if (type === 'counter') expect(name).toMatch(/_total$/);
      else expect(name).not.toMatch(/_total$/);
      if (type === 'histogram') expect(name).toMatch(/_seconds$/);
    }
  });
});

describe('Grafana dashboard (deploy/grafana/campaign-api.dashboard.json)', () => {
  const dashboard = JSON.parse(read('deploy/grafana/campaign-api.dashboard.json')) as {
    panels: Array<{ id: number; type: string; title: string; targets?: Array<{ expr: string }> }>;
  };
  const panels = dashboard.panels.filter((p) => p.type !== 'row');

  it('has a query on every panel and unique panel ids', () => {
    expect(panels.length).toBeGreaterThanOrEqual(12);
    for (const panel of panels) expect(panel.targets?.length).toBeGreaterThan(0);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads only metrics the service exports', () => {
    const { names } = exportedNames();
    const used = panels.flatMap((p) => p.targets!.flatMap((t) => namesIn(t.expr)));
    expect(used.length).toBeGreaterThan(20);
    for (const name of used) expect(names).toContain(name);
    // Every family of the service's own metrics is on the dashboard.
    for (const family of [
      'campaign_api_http_request_duration_seconds_count',
      'campaign_api_leads_received_total',
      'campaign_api_delivery_attempts_total',
      'campaign_api_delivery_lag_seconds_bucket',
      'campaign_api_delivery_backlog_oldest_due_age_seconds',
      'campaign_api_queue_jobs',
      'campaign_api_endpoints_failing',
      'campaign_api_db_pool_connections',
    ]) {
      expect(used).toContain(family);
    }
  });
});

describe('Prometheus alert rules (deploy/prometheus/alerts.yml)', () => {
  const rules = (
    parse(read('deploy/prometheus/alerts.yml')) as {
      groups: Array<{ rules: Array<{ alert: string; expr: string; for?: string }> }>;
    }
  ).groups.flatMap((g) => g.rules);

  it('alert on the backlog age, the failure rate, idle workers and the partitions on disk', () => {
    const byName = new Map(rules.map((r) => [r.alert, r.expr]));
    expect(byName.get('CampaignApiDeliveryBacklogOld')).toContain(
      'campaign_api_delivery_backlog_oldest_due_age_seconds',
    );
    expect(byName.get('CampaignApiDeliveryFailureRateHigh')).toContain(
      'campaign_api_delivery_attempts_total{outcome!="success"}',
    );
    expect(byName.get('CampaignApiNoWorkerTakingJobs')).toContain('state="active"');
    expect(byName.get('CampaignApiAttemptPartitionsLarge')).toContain(
      'campaign_api_attempt_partitions_size_bytes',
    );
    for (const rule of rules) expect(rule.for).toMatch(/^\d+[smh]$/);
  });

  it('read only metrics the service exports', () => {
    const { names } = exportedNames();
    const used = rules.flatMap((r) => namesIn(r.expr));
    expect(used.length).toBeGreaterThanOrEqual(rules.length);
    for (const name of used) {
      if (!PROMETHEUS_SERIES.has(name)) expect(names).toContain(name);
    }
  });

  it('are loaded by the scrape configuration, which scrapes the API', () => {
    const config = parse(read('deploy/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    const api = config.scrape_configs.find((c) => c.job_name === 'campaign-api');
    expect(api?.static_configs[0].targets).toEqual(['app:9464']);
  });
});

describe('Compose observability profile and collector (docs/operations.md#the-deploy-kit)', () => {
  it('mounts the files of deploy/ that exist, under the observability profile', () => {
    const compose = parse(read('docker-compose.yml')) as {
      services: Record<string, { profiles?: string[]; volumes?: string[] }>;
    };
    for (const name of ['prometheus', 'grafana', 'jaeger', 'otel-collector']) {
      expect(compose.services[name].profiles).toEqual(['observability']);
      for (const volume of compose.services[name].volumes ?? []) {
        const source = volume.split(':')[0];
        if (source.startsWith('./')) expect(existsSync(join(root, source))).toBe(true);
      }
    }
    expect(compose.services.app.profiles).toBeUndefined();
  });

  it('sends OTLP traces to Jaeger and OTLP metrics to Prometheus', () => {
    const collector = parse(read('deploy/otel/collector.yaml')) as {
      service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
      exporters: Record<string, { endpoint: string }>;
    };
    expect(collector.service.pipelines.traces).toMatchObject({
      receivers: ['otlp'],
      exporters: ['otlp/jaeger'],
    });
    expect(collector.service.pipelines.metrics.exporters).toEqual(['prometheus']);
    expect(collector.exporters['otlp/jaeger'].endpoint).toBe('jaeger:4317');
  });
});
