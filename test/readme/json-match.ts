/**
 * Compares the output a README shows with the output a command really printed: same keys,
 * same values, except the values that change from run to run (ids drawn at random, times,
 * durations, secrets), of which only the type is compared, and the folders `mktemp -d` drew,
 * which may differ in a path.
 */

/** Keys whose values differ on every run: random ids, timestamps, measured times, secrets. */
const VOLATILE_KEYS = new Set([
  'import_id',
  'webhook_id',
  'received_at',
  'created_at',
  'timestamp',
  'last_delivery_at',
  'revoked_at',
  'avg_duration_ms',
  'duration_ms',
  'elapsed_ms',
  'leads_per_second',
  'rows_per_second',
  'access_token',
  'api_key',
  'key_prefix',
  'secret',
  'password',
]);

/**
 * Parses a command's output as JSON documents: one document (pretty-printed or not), or one
 * per line (JSON Lines, as the webhook receiver prints). Lines that are not JSON (log lines of
 * other formats) are left out in the JSON Lines reading.
 */
export function jsonDocuments(text: string): unknown[] {
  const trimmed = text.trim();
  if (!trimmed) return [];
  try {
    return [JSON.parse(trimmed)];
  } catch {
    const documents: unknown[] = [];
    for (const line of trimmed.split('\n')) {
      try {
        documents.push(JSON.parse(line));
      } catch {
        // not a JSON line
      }
    }
    return documents;
  }
}

/**
 * A folder `mktemp -d` made (`/tmp/tmp.Wn3kX1bq7Z`: any parent, then `tmp.` and ten letters or
 * digits), wherever it appears in a string.
 */
const MKTEMP_FOLDER = /(?:\/[\w.-]+)*\/tmp\.[A-Za-z0-9]{10}(?![A-Za-z0-9])/g;

/** `text` with each folder `mktemp -d` made replaced by the same placeholder. */
export function withoutTemporaryFolders(text: string): string {
  return text.replace(MKTEMP_FOLDER, '<mktemp -d>');
}

const typeOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/**
 * The differences between `expected` (as the README shows it) and `actual`, one line each
 * (`$.first_errors[0].row: expected 16, got 17`); empty when they match. Keys in
 * {@link VOLATILE_KEYS} only need a value of the same type; strings match when they differ only
 * in the folders `mktemp -d` drew ({@link withoutTemporaryFolders}).
 */
export function jsonDifferences(expected: unknown, actual: unknown, path = '$'): string[] {
  if (typeOf(expected) !== typeOf(actual)) {
    return [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    const got = actual as unknown[];
    if (expected.length !== got.length) {
      return [`${path}: expected ${expected.length} items, got ${got.length}`];
    }
    return expected.flatMap((item, i) => jsonDifferences(item, got[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    const want = expected as Record<string, unknown>;
    const got = actual as Record<string, unknown>;
    const differences: string[] = [];
    for (const key of Object.keys(want)) {
      if (!(key in got)) differences.push(`${path}.${key}: missing`);
      else if (VOLATILE_KEYS.has(key) && want[key] !== null) {
        if (typeOf(want[key]) !== typeOf(got[key])) {
          differences.push(
            `${path}.${key}: expected a ${typeOf(want[key])}, got ${typeOf(got[key])}`,
          );
        }
      } else differences.push(...jsonDifferences(want[key], got[key], `${path}.${key}`));
    }
    for (const key of Object.keys(got)) {
      if (!(key in want)) differences.push(`${path}.${key}: not shown in the README`);
    }
    return differences;
  }
  const same =
    expected === actual ||
    (typeof expected === 'string' &&
      typeof actual === 'string' &&
      withoutTemporaryFolders(expected) === withoutTemporaryFolders(actual));
  return same
    ? []
    : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/**
 * Checks that every document the README shows (`expectedText`: one JSON document, or JSON
 * Lines) is matched by some document of `actualText`.
 *
 * @returns an empty array when all match, else for each unmatched document the differences
 * from the closest actual document.
 */
export function unmatchedDocuments(expectedText: string, actualText: string): string[] {
  const actual = jsonDocuments(actualText);
  const problems: string[] = [];
  for (const want of jsonDocuments(expectedText)) {
    const attempts = actual.map((got) => jsonDifferences(want, got));
    if (attempts.some((differences) => differences.length === 0)) continue;
    const closest = attempts.sort((a, b) => a.length - b.length)[0];
    problems.push(
      closest
        ? `${JSON.stringify(want).slice(0, 120)}…\n  ${closest.join('\n  ')}`
        : `${JSON.stringify(want).slice(0, 120)}…: no JSON in the output`,
    );
  }
  return problems;
}
