/** The starter code of an endpoint without a transformation (docs/webhooks.md#transformations). */
export const STARTER_CODE = `function handler(webhook) {
  // webhook: { method, url, headers, payload, event_type }
  return webhook;
}
`;

/**
 * The line and column a refusal names (`transformation line 3, column 5: SyntaxError: …`), or
 * null when it names none (`transformation is 70 KiB; at most 64 KiB`).
 */
export function positionIn(message: string): { line: number; column: number | null } | null {
  const found = /\bline (\d+)(?:, column (\d+))?/.exec(message);
  if (!found) return null;
  return { line: Number(found[1]), column: found[2] === undefined ? null : Number(found[2]) };
}

/** `line 3, column 5`, `line 3`, or '' without a line. */
export function positionText(line: number | null, column: number | null): string {
  if (line === null) return '';
  return column === null ? `line ${line}` : `line ${line}, column ${column}`;
}

/** A request body as shown: pretty-printed when it is JSON, else as it is. */
export function prettyBody(body: string): { text: string; json: boolean } {
  try {
    return { text: JSON.stringify(JSON.parse(body), null, 2), json: true };
  } catch {
    return { text: body, json: false };
  }
}
