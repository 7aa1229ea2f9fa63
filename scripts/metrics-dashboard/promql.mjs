/**
 * Just enough PromQL to draw the Grafana dashboard (deploy/grafana/campaign-api.dashboard.json)
 * from scrapes taken by scripts/render-metrics-dashboard.mjs, without a Prometheus server:
 * selectors with `=`, `!=`, `=~` matchers; `rate(sel[range])`; `sum`/`max`/`min`/`avg` with
 * `by (…)`; `histogram_quantile(q, …)`; numbers and `/` between vectors. Anything else throws,
 * so a panel this cannot draw is noticed.
 */

/** Parses a text exposition into samples `{name, labels, value}`. */
export function parseExposition(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = raw.replace(/\\(["\\])/g, '$1');
    }
    samples.push({
      name: match[1],
      labels,
      value: match[3] === '+Inf' ? Infinity : Number(match[3]),
    });
  }
  return samples;
}

function tokenize(expr) {
  const tokens = [];
  const re =
    /\s*(?:(\d+(?:\.\d+)?(?:e\d+)?)|([a-zA-Z_:][a-zA-Z0-9_:]*)|("(?:[^"\\]|\\.)*")|(!=|=~|!~|[(){}[\],=/*+-])|(\$\w+))/gy;
  let match;
  while (re.lastIndex < expr.length && (match = re.exec(expr))) {
    if (match[1]) tokens.push({ kind: 'number', value: Number(match[1]) });
    else if (match[2]) tokens.push({ kind: 'ident', value: match[2] });
    else if (match[3]) tokens.push({ kind: 'string', value: JSON.parse(match[3]) });
    else if (match[4]) tokens.push({ kind: 'op', value: match[4] });
    else if (match[5]) tokens.push({ kind: 'var', value: match[5] });
    if (expr.slice(re.lastIndex).trim() === '') break;
  }
  return tokens;
}

const AGGREGATIONS = new Set(['sum', 'max', 'min', 'avg']);

/** Parses `expr` into a tree of the supported forms. */
export function parse(expr) {
  const tokens = tokenize(expr);
  let i = 0;
  const peek = () => tokens[i];
  const take = (value) => {
    const token = tokens[i++];
    if (value !== undefined && token?.value !== value) {
      throw new Error(`expected ${value} at token ${i} of ${expr}`);
    }
    return token;
  };
  const labelList = () => {
    take('(');
    const names = [];
    while (peek().value !== ')') {
      names.push(take().value);
      if (peek().value === ',') take(',');
    }
    take(')');
    return names;
  };
  const selector = (name) => {
    const matchers = [];
    if (peek()?.value === '{') {
      take('{');
      while (peek().value !== '}') {
        const label = take().value;
        const op = take().value;
        const value = take().value;
        matchers.push({ label, op, value });
        if (peek().value === ',') take(',');
      }
      take('}');
    }
    return { kind: 'selector', name, matchers };
  };
  const primary = () => {
    const token = take();
    if (token.kind === 'number') return { kind: 'number', value: token.value };
    if (token.value === '(') {
      const inner = binary();
      take(')');
      return inner;
    }
    if (token.kind !== 'ident') throw new Error(`unexpected ${token.value} in ${expr}`);
    if (AGGREGATIONS.has(token.value)) {
      let by = peek().value === 'by' ? (take(), labelList()) : null;
      take('(');
      const inner = binary();
      take(')');
      if (peek()?.value === 'by') by = (take(), labelList());
      return { kind: 'aggregate', op: token.value, by: by ?? [], inner };
    }
    if (token.value === 'rate') {
      take('(');
      const sel = selector(take().value);
      take('[');
      while (peek().value !== ']') take();
      take(']');
      take(')');
      return { kind: 'rate', selector: sel };
    }
    if (token.value === 'histogram_quantile') {
      take('(');
      const q = take().value;
      take(',');
      const inner = binary();
      take(')');
      return { kind: 'quantile', q, inner };
    }
    if (peek()?.value === '(') throw new Error(`unsupported function ${token.value}`);
    return selector(token.value);
  };
  const binary = () => {
    let left = primary();
    while (peek()?.value === '/') {
      take('/');
      left = { kind: 'divide', left, right: primary() };
    }
    return left;
  };
  const tree = binary();
  if (i < tokens.length) throw new Error(`unparsed rest of ${expr}`);
  return tree;
}

const keyOf = (labels) =>
  JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));

function matches(sample, { name, matchers }) {
  if (sample.name !== name) return false;
  return matchers.every(({ label, op, value }) => {
    const actual = sample.labels[label] ?? '';
    if (op === '=') return actual === value;
    if (op === '!=') return actual !== value;
    if (op === '=~') return new RegExp(`^(?:${value})$`).test(actual);
    return !new RegExp(`^(?:${value})$`).test(actual);
  });
}

/**
 * Evaluates a parsed expression at snapshot `at` of `snapshots` (each: `{t, targets:
 * [{instance, samples}]}`, t in seconds), with ranges of `rangeSeconds`.
 * @returns an instant vector: Map of label key → `{labels, value}`.
 */
function evaluate(node, snapshots, at, rangeSeconds) {
  switch (node.kind) {
    case 'number':
      return new Map([['{}', { labels: {}, value: node.value, scalar: true }]]);
    case 'selector': {
      const out = new Map();
      for (const target of snapshots[at].targets) {
        for (const s of target.samples.filter((s) => matches(s, node))) {
          const labels = { ...s.labels, instance: target.instance };
          out.set(keyOf(labels), { labels, value: s.value });
        }
      }
      return out;
    }
    case 'rate': {
      const now = evaluate(node.selector, snapshots, at, rangeSeconds);
      let from = at;
      while (from > 0 && snapshots[at].t - snapshots[from - 1].t <= rangeSeconds) from -= 1;
      if (from === at) return new Map();
      const before = evaluate(node.selector, snapshots, from, rangeSeconds);
      const seconds = snapshots[at].t - snapshots[from].t;
      const out = new Map();
      for (const [key, { labels, value }] of now) {
        const old = before.get(key)?.value ?? 0;
        out.set(key, { labels, value: Math.max(0, value - old) / seconds });
      }
      return out;
    }
    case 'aggregate': {
      const groups = new Map();
      for (const { labels, value } of evaluate(node.inner, snapshots, at, rangeSeconds).values()) {
        const kept = Object.fromEntries(
          node.by.filter((l) => l in labels).map((l) => [l, labels[l]]),
        );
        const key = keyOf(kept);
        const group = groups.get(key) ?? { labels: kept, values: [] };
        group.values.push(value);
        groups.set(key, group);
      }
      const reduce = {
        sum: (v) => v.reduce((a, b) => a + b, 0),
        max: (v) => Math.max(...v),
        min: (v) => Math.min(...v),
        avg: (v) => v.reduce((a, b) => a + b, 0) / v.length,
      }[node.op];
      return new Map(
        [...groups].map(([key, g]) => [key, { labels: g.labels, value: reduce(g.values) }]),
      );
    }
    case 'quantile': {
      const series = new Map();
      for (const { labels, value } of evaluate(node.inner, snapshots, at, rangeSeconds).values()) {
        const { le, ...rest } = labels;
        const key = keyOf(rest);
        const s = series.get(key) ?? { labels: rest, buckets: [] };
        s.buckets.push({ le: le === '+Inf' ? Infinity : Number(le), count: value });
        series.set(key, s);
      }
      const out = new Map();
      for (const [key, { labels, buckets }] of series) {
        const value = bucketQuantile(node.q, buckets);
        if (Number.isFinite(value)) out.set(key, { labels, value });
      }
      return out;
    }
    case 'divide': {
      const left = evaluate(node.left, snapshots, at, rangeSeconds);
      const right = evaluate(node.right, snapshots, at, rangeSeconds);
      const out = new Map();
      for (const [key, { labels, value }] of left) {
        const divisor = right.get(key) ?? [...right.values()].find((r) => r.scalar);
        if (divisor && divisor.value !== 0) out.set(key, { labels, value: value / divisor.value });
      }
      return out;
    }
    default:
      throw new Error(`cannot evaluate ${node.kind}`);
  }
}

/** Prometheus's interpolation within the bucket holding the `q` quantile. */
function bucketQuantile(q, buckets) {
  buckets.sort((a, b) => a.le - b.le);
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of buckets) {
    if (count >= rank) {
      if (le === Infinity) return lower;
      return lower + ((le - lower) * (rank - below)) / Math.max(count - below, 1e-12);
    }
    lower = le;
    below = count;
  }
  return lower;
}

/**
 * The series of one dashboard query over all snapshots.
 * @returns `[{legend, points: [[t, value]]}]`, `legendFormat`'s `{{label}}` filled in.
 */
export function querySeries(expr, legendFormat, snapshots, rangeSeconds) {
  const tree = parse(expr);
  const series = new Map();
  snapshots.forEach((snapshot, at) => {
    for (const [key, { labels, value }] of evaluate(tree, snapshots, at, rangeSeconds)) {
      const legend = (legendFormat || expr).replace(
        /\{\{\s*(\w+)\s*\}\}/g,
        (_, l) => labels[l] ?? '',
      );
      const s = series.get(key) ?? { legend, points: [] };
      s.points.push([snapshot.t, value]);
      series.set(key, s);
    }
  });
  return [...series.values()];
}
