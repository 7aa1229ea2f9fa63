// Browser side of scripts/render-metrics-dashboard.mjs, bundled by Vite into one script: draws
// each panel of the Grafana dashboard with Recharts (the web dashboard's chart library) from the
// series the script computed. Exposes window.renderDashboard(root, dashboard).
import React from 'react';
import { createRoot } from 'react-dom/client';
import {
  Area,
  AreaChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

const h = React.createElement;
const COLORS = [
  '#1c7ed6',
  '#e8590c',
  '#2f9e44',
  '#c2255c',
  '#7048e8',
  '#f08c00',
  '#0c8599',
  '#868e96',
];

/** A value with the panel's Grafana unit. */
function format(unit, value) {
  if (!Number.isFinite(value)) return '';
  const short = (v) =>
    Math.abs(v) >= 1e6
      ? `${(v / 1e6).toFixed(1)}M`
      : Math.abs(v) >= 1e3
        ? `${(v / 1e3).toFixed(1)}k`
        : `${+v.toFixed(2)}`;
  switch (unit) {
    case 's':
      return value < 1 ? `${+(value * 1000).toFixed(1)} ms` : `${+value.toFixed(2)} s`;
    case 'bytes':
      return value >= 1 << 20
        ? `${(value / (1 << 20)).toFixed(1)} MiB`
        : `${(value / 1024).toFixed(0)} KiB`;
    case 'percentunit':
      return `${+(value * 100).toFixed(1)}%`;
    case 'reqps':
      return `${short(value)} req/s`;
    case 'ops':
      return `${short(value)}/s`;
    default:
      return short(value);
  }
}

const clock = (t) =>
  `${String(Math.floor(t / 60)).padStart(2, '0')}:${String(Math.round(t % 60)).padStart(2, '0')}`;

function Panel({ panel }) {
  const times = [...new Set(panel.series.flatMap((s) => s.points.map(([t]) => t)))].sort(
    (a, b) => a - b,
  );
  const data = times.map((t) => {
    const row = { t };
    panel.series.forEach((s, i) => {
      const point = s.points.find(([pt]) => pt === t);
      if (point) row[`s${i}`] = point[1];
    });
    return row;
  });
  const Chart = panel.stack ? AreaChart : LineChart;
  const Series = panel.stack ? Area : Line;
  return h(
    'section',
    { className: 'panel', style: { gridColumn: `span ${panel.w}` } },
    h('h3', null, panel.title),
    panel.series.length === 0
      ? h('p', { className: 'empty' }, 'No data in this run')
      : h(
          Chart,
          {
            width: panel.w === 24 ? 1560 : 770,
            height: 230,
            data,
            margin: { top: 8, right: 16, left: 8, bottom: 0 },
          },
          h(CartesianGrid, { strokeDasharray: '3 3', stroke: '#2c2e33' }),
          h(XAxis, {
            dataKey: 't',
            tickFormatter: clock,
            stroke: '#909296',
            type: 'number',
            domain: ['dataMin', 'dataMax'],
          }),
          h(YAxis, { tickFormatter: (v) => format(panel.unit, v), stroke: '#909296', width: 80 }),
          h(Tooltip, { formatter: (v) => format(panel.unit, v), labelFormatter: clock }),
          h(Legend, null),
          ...panel.series.map((s, i) =>
            h(Series, {
              key: i,
              dataKey: `s${i}`,
              name: s.legend,
              stroke: COLORS[i % COLORS.length],
              fill: COLORS[i % COLORS.length],
              fillOpacity: 0.5,
              stackId: panel.stack ? 'a' : undefined,
              dot: false,
              isAnimationActive: false,
              connectNulls: true,
              type: 'monotone',
            }),
          ),
        ),
  );
}

function Dashboard({ dashboard }) {
  return h(
    'main',
    null,
    h('header', null, h('h1', null, dashboard.title), h('p', null, dashboard.subtitle)),
    h(
      'div',
      { className: 'grid' },
      ...dashboard.panels.map((panel, i) =>
        panel.type === 'row'
          ? h('h2', { key: i, style: { gridColumn: 'span 24' } }, panel.title)
          : h(Panel, { key: i, panel }),
      ),
    ),
  );
}

window.renderDashboard = (root, dashboard) => {
  createRoot(root).render(h(Dashboard, { dashboard }));
};
