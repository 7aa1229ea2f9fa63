/**
 * A workbook the XLSX reader refuses: over one of its limits, or malformed. The `message` is
 * written for the person who uploaded the file and reads after "file", e.g. "has more than
 * 1,048,576 rows" or "is not a valid XLSX workbook: xl/workbook.xml:3:7: unclosed tag: sheets".
 * The limits: `XlsxLimits` in xlsx-sheet-reader.ts.
 */
export class XlsxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XlsxError';
  }

  /** "is not a valid XLSX workbook: {reason}". */
  static invalid(reason: string): XlsxError {
    return new XlsxError(`is not a valid XLSX workbook: ${reason}`);
  }
}

const UNITS: Array<[number, string]> = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];

/** A byte count for a message: "128 MiB", "1.5 GiB", "512 bytes". */
export function formatBytes(bytes: number): string {
  for (const [size, unit] of UNITS) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** A count for a message: "1,048,576". */
export const formatCount = (count: number): string => count.toLocaleString('en-US');

/**
 * Whether an error comes from the operating system (a missing file, no space left): such an
 * error is the host's to handle, not a fault of the workbook, so it is passed on as it is.
 */
export function isSystemError(error: unknown): boolean {
  // Not `instanceof Error`: an error from Node's own modules may come from another realm (a
  // vm context, as under Jest).
  return typeof (error as NodeJS.ErrnoException | undefined)?.syscall === 'string';
}

/** An error's message, whatever was thrown. */
export function messageOf(error: unknown): string {
  const message = (error as Error | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** The error as an XlsxError: itself, or "is not a valid XLSX workbook: {its message}". */
export function asXlsxError(error: unknown, context?: string): unknown {
  if (error instanceof XlsxError || isSystemError(error)) return error;
  return XlsxError.invalid(`${context ? `${context}: ` : ''}${messageOf(error).slice(0, 300)}`);
}
