import type { LoggerService } from '@nestjs/common';
import { InvalidInputError } from '../common/domain-error';

/** Prints a command's result: one JSON document on stdout (docs/cli.md). */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/**
 * Reads a required positive integer option.
 * @throws InvalidInputError naming the option.
 */
export function positiveIntOption(value: string | undefined, option: string): number {
  if (value === undefined) throw new InvalidInputError(`${option} is required`);
  if (!/^[1-9][0-9]{0,9}$/.test(value.trim())) {
    throw new InvalidInputError(`${option} must be a positive integer, got "${value}"`);
  }
  return Number(value.trim());
}

/**
 * Reads a comma-separated list of positive integers such as `1,2,3`.
 * @throws InvalidInputError naming the option.
 */
export function positiveIntListOption(value: string, option: string): number[] {
  const items = value.split(',').map((item) => item.trim());
  if (items.length === 0 || items.some((item) => !/^[1-9][0-9]{0,9}$/.test(item))) {
    throw new InvalidInputError(
      `${option} must be a comma-separated list of positive integers, got "${value}"`,
    );
  }
  return items.map(Number);
}

/** Reads a required text option. @throws InvalidInputError naming the option. */
export function requiredOption(value: string | undefined, option: string): string {
  if (value === undefined || value.trim() === '')
    throw new InvalidInputError(`${option} is required`);
  return value;
}

/** Nest logger for the CLI: warnings and errors on stderr, nothing else, so stdout stays one JSON document. */
export class StderrLogger implements LoggerService {
  log(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown, context?: string): void {
    process.stderr.write(`warn${context ? ` [${context}]` : ''}: ${String(message)}\n`);
  }
  error(message: unknown, ...rest: unknown[]): void {
    const context = rest.length > 0 ? rest[rest.length - 1] : undefined;
    process.stderr.write(
      `error${typeof context === 'string' ? ` [${context}]` : ''}: ${String(message)}\n`,
    );
  }
}

/**
 * The CLI option of each service field whose option is not named after it (the field in
 * kebab case): the endpoint throttle's limits and an API key's campaigns.
 */
const OPTION_OF_FIELD: Readonly<Record<string, string>> = {
  max_deliveries_per_second: '--max-per-second',
  max_in_flight: '--max-in-flight',
  campaign_ids: '--campaigns',
};

/**
 * The CLI option a service field comes from: `max_deliveries_per_second` → `--max-per-second`,
 * `signature_scheme` → `--signature-scheme`, `name` → `--name`.
 */
export function optionOfField(field: string): string {
  return OPTION_OF_FIELD[field] ?? `--${field.replace(/_/g, '-')}`;
}

/**
 * The one line the CLI prints on stderr for `error` (docs/cli.md#running-the-cli): its first
 * line after `error: `. A domain error about a field names the option it came from
 * (`name must be …` → `--name must be …`, `max_in_flight must be …` → `--max-in-flight must be …`).
 */
export function cliErrorLine(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  const field = (error as { field?: unknown } | null)?.field;
  if (typeof field === 'string') {
    message = message.replace(new RegExp(`\\b${field}\\b`), optionOfField(field));
  }
  return `error: ${message.split('\n')[0]}`;
}
