/** `0.9531` → `95.3 %`; `—` when there is no figure. */
export function formatRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '—';
  const percent = rate * 100;
  return `${Number.isInteger(percent) ? percent : percent.toFixed(1)} %`;
}

/** `12.3456` → `12 ms`, `1534` → `1.53 s`; `—` when there is no figure. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/**
 * An endpoint's name in titles and breadcrumbs: its description when it has one, else the host
 * of its URL (`hooks.example.com`), else the URL as it is.
 */
export function endpointName(endpoint: { description: string | null; url: string }): string {
  const description = endpoint.description?.trim();
  if (description) return description;
  try {
    return new URL(endpoint.url).host || endpoint.url;
  } catch {
    return endpoint.url;
  }
}

/** Figures are grouped the same way for every viewer: `10,000`, as the docs and the API write them. */
const COUNT = new Intl.NumberFormat('en-US');

/** `10000` → `10,000`. */
export function formatCount(count: number): string {
  return COUNT.format(count);
}

/**
 * A count with its noun, singular for one: `countOf(1, 'row')` → `1 row`,
 * `countOf(10000, 'row')` → `10,000 rows`; `plural` for nouns not made with an `s`.
 */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : plural}`;
}

/**
 * A file's size in the unit that reads best: `512 bytes`, `1 byte`, `7.2 KiB`, `3.4 MiB`
 * (1,024-based, one decimal), never `0.0 MiB`.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return countOf(bytes, 'byte');
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (Number(value.toFixed(1)) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
