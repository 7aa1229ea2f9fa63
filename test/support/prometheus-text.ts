/** One sample of a Prometheus text exposition: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the samples of a text exposition (comments skipped); throws on a malformed line. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL)) {
      labels[key] = raw.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    }
    const value = match[3] === '+Inf' ? Infinity : Number(match[3]);
    samples.push({ name: match[1], labels, value });
  }
  return samples;
}

/**
 * The value of the sample `name` whose labels include `labels`; throws when there is none or
 * more than one, so that a test names exactly the series it means.
 */
export function valueOf(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) {
    throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  }
  return found[0].value;
}
