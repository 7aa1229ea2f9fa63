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
