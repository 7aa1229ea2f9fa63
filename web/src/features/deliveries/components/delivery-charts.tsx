import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import {
  Card,
  ColorSwatch,
  Group,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useId, useState, type ReactNode } from 'react';
import { Figure } from '../../../components/ui/figure';
import { PageError, PageLoader } from '../../../components/ui/page-states';
import { formatDuration, formatRate } from '../../../lib/format';
import {
  useDeliveryStats,
  type DeliveryFigures,
  type StatsSubject,
  type StatsWindow,
} from '../api/stats-queries';
import { chartRows, FAILURE_SERIES } from '../lib/chart-data';

const WINDOWS: Array<{ value: StatsWindow; label: string }> = [
  { value: '1h', label: '1 hour' },
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
];

const CHART_HEIGHT = 220;

/** A titled chart card; the chart is described by its title for assistive technology. */
function ChartCard({
  title,
  description,
  children,
}: {
  title: string;
  description: string;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Card withBorder radius="md" padding="lg" component="figure" aria-labelledby={id} m={0}>
      <Stack gap="xs">
        <div>
          <Title order={3} size="h5" id={id}>
            {title}
          </Title>
          <Text size="xs" c="dimmed">
            {description}
          </Text>
        </div>
        {children}
      </Stack>
    </Card>
  );
}

/** The window's figures: delivery attempts, their success rate, latency and lag percentiles. */
function WindowFigures({ totals }: { totals: DeliveryFigures }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} spacing="md" data-testid="window-figures">
      <Figure label="Delivery attempts">{totals.attempts.toLocaleString()}</Figure>
      <Figure label="Success rate">{formatRate(totals.success_rate)}</Figure>
      <Figure label="Latency p50">{formatDuration(totals.latency_ms.p50)}</Figure>
      <Figure label="Latency p95">{formatDuration(totals.latency_ms.p95)}</Figure>
      <Figure label="Latency p99">{formatDuration(totals.latency_ms.p99)}</Figure>
      <Figure label="Lag p50">{formatDuration(totals.lag_ms.p50)}</Figure>
      <Figure label="Lag p95">{formatDuration(totals.lag_ms.p95)}</Figure>
    </SimpleGrid>
  );
}

const ms = (value: number) => formatDuration(value);

/** The series of the attempts-by-outcome chart: successes, then each kind of failure. */
const OUTCOME_SERIES = [
  { name: 'succeeded', label: 'Succeeded', color: 'teal.6' },
  ...FAILURE_SERIES.map((s) => ({ name: s.key, label: s.label, color: s.color })),
];

/**
 * A chart's legend under it, outside the chart's own height: a legend of many series wraps to
 * several lines on a phone, and inside the chart it would take them from the plot.
 */
function SeriesLegend({
  series,
}: {
  series: Array<{ name: string; label: string; color: string }>;
}) {
  return (
    <Group gap="xs" justify="center" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
      {series.map((s) => (
        <Group key={s.name} gap={6} wrap="nowrap" component="li">
          <ColorSwatch
            color={`var(--mantine-color-${s.color.replace('.', '-')})`}
            size={12}
            withShadow={false}
            aria-hidden
          />
          <Text size="xs">{s.label}</Text>
        </Group>
      ))}
    </Group>
  );
}

/** Percentiles in ms over time, one line each; gaps where a period had no attempts. */
function PercentileChart({
  title,
  description,
  rows,
  series,
}: {
  title: string;
  description: string;
  rows: ReturnType<typeof chartRows>;
  series: Array<{ name: string; label: string; color: string }>;
}) {
  return (
    <ChartCard title={title} description={description}>
      <LineChart
        h={CHART_HEIGHT}
        data={rows}
        dataKey="time"
        valueFormatter={ms}
        connectNulls={false}
        series={series}
      />
      <SeriesLegend series={series} />
    </ChartCard>
  );
}

/**
 * Delivery charts of an endpoint or a campaign (docs/delivery-analytics.md): the window's
 * figures, delivery attempts over time by outcome, success rate, latency p50/p95/p99 and end-to-end
 * lag p50/p95, for the last hour, 24 hours, 7 days or 30 days. Read from the rollups and
 * refreshed every 30 s. Colours come from the Mantine theme, so both colour schemes read well.
 */
export function DeliveryCharts({ subject }: { subject: StatsSubject }) {
  const [window, setWindow] = useState<StatsWindow>('24h');
  const stats = useDeliveryStats(subject, window);
  const rows = stats.data ? chartRows(stats.data) : [];

  return (
    <Stack gap="md" component="section" aria-label="Delivery charts">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Text size="sm" c="dimmed">
          Delivery attempts by the minute, hour or day they started. Percentiles are within 5 % of
          the exact values.
        </Text>
        <SegmentedControl
          aria-label="Window"
          value={window}
          onChange={(value) => setWindow(value as StatsWindow)}
          data={WINDOWS}
        />
      </Group>
      {stats.isPending ? (
        <PageLoader label="Loading the charts…" />
      ) : stats.isError ? (
        <PageError error={stats.error} onRetry={() => void stats.refetch()} />
      ) : (
        <>
          <Card withBorder radius="md" padding="lg">
            <WindowFigures totals={stats.data.totals} />
          </Card>
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            <ChartCard
              title="Delivery attempts by outcome"
              description="Delivery attempts per period: successes and each kind of failure."
            >
              <BarChart
                h={CHART_HEIGHT}
                data={rows}
                dataKey="time"
                type="stacked"
                // Counts: whole ticks only (never 0.75 attempts).
                yAxisProps={{ allowDecimals: false }}
                series={OUTCOME_SERIES}
              />
              <SeriesLegend series={OUTCOME_SERIES} />
            </ChartCard>
            <ChartCard
              title="Success rate"
              description="Successful delivery attempts as a share of all, per period."
            >
              <LineChart
                h={CHART_HEIGHT}
                data={rows}
                dataKey="time"
                unit=" %"
                yAxisProps={{ domain: [0, 100] }}
                connectNulls={false}
                series={[{ name: 'success_rate', label: 'Success rate', color: 'teal.6' }]}
              />
            </ChartCard>
            <PercentileChart
              title="Latency"
              description="Attempt durations (send to answer), p50, p95 and p99 per period."
              rows={rows}
              series={[
                { name: 'p50', label: 'p50', color: 'blue.6' },
                { name: 'p95', label: 'p95', color: 'violet.6' },
                { name: 'p99', label: 'p99', color: 'red.6' },
              ]}
            />
            <PercentileChart
              title="End-to-end lag"
              description="From the event being recorded to its first successful attempt, p50 and p95."
              rows={rows}
              series={[
                { name: 'lag_p50', label: 'Lag p50', color: 'cyan.6' },
                { name: 'lag_p95', label: 'Lag p95', color: 'indigo.6' },
              ]}
            />
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}
