/**
 * The compliance record of a lead import when the request leaves parts of it out
 * (docs/api.md#the-upload-body, docs/dashboard.md#spreadsheet-imports): one place for the API's
 * upload body and the dashboard's spreadsheet start, so both store the same defaults.
 */

/** The disclaimer version recorded when none is given. */
export const DEFAULT_DISCLAIMER_VERSION = 'v1.0';

/** The `source` recorded when none is given, by channel. */
export const DEFAULT_SOURCE = { api: 'api', spreadsheet: 'spreadsheet' } as const;

/** The compliance fields as given (each optional; null counts as absent). */
export interface ComplianceInput {
  source?: string | null;
  tags?: string[] | null;
  skip_duplicates?: boolean | null;
  disclaimer_version?: string | null;
}

/** The compliance fields as stored: every default applied, strings well-formed. */
export interface ComplianceOptions {
  source: string;
  tags: string[];
  skipDuplicates: boolean;
  disclaimerVersion: string;
}

/**
 * `input` with the defaults applied: `source` the channel's ({@link DEFAULT_SOURCE}), `tags`
 * none, `skip_duplicates` true, `disclaimer_version` {@link DEFAULT_DISCLAIMER_VERSION}. Strings
 * are made well-formed (a lone surrogate becomes U+FFFD, as PostgreSQL stores it), so what is
 * stored is what webhooks deliver.
 */
export function complianceOptions(
  input: ComplianceInput,
  channel: keyof typeof DEFAULT_SOURCE,
): ComplianceOptions {
  return {
    source: (input.source ?? DEFAULT_SOURCE[channel]).toWellFormed(),
    tags: (input.tags ?? []).map((tag) => tag.toWellFormed()),
    skipDuplicates: input.skip_duplicates ?? true,
    disclaimerVersion: (input.disclaimer_version ?? DEFAULT_DISCLAIMER_VERSION).toWellFormed(),
  };
}
