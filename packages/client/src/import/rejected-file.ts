import {
  closeSync,
  fsyncSync,
  openSync,
  rmSync,
  truncateSync,
  writeSync,
  existsSync,
} from 'node:fs';
import { stringify } from 'csv-stringify/sync';

/**
 * A cell made safe to open in a spreadsheet (OWASP, CSV injection): a value starting with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with a single quote, so it is
 * shown as text instead of run as a formula. (`+1 212…` phones get the quote too.)
 */
export function escapeFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** One rejected row: where it is in the input, why, and its original cells. */
export interface RejectedRow {
  line: number;
  field: string;
  message: string;
  cells: string[];
}

/**
 * `<input>.rejected.csv`: `line,field,message` and then the input's own columns. Appended
 * chunk by chunk; {@link append} returns the file's new length, which the resume state keeps,
 * so a resumed run cuts off rows of a chunk that was written but not recorded as done.
 */
export class RejectedFile {
  constructor(
    readonly path: string,
    private readonly headers: string[],
  ) {}

  /** Cuts the file back to `bytes` (deletes it at 0): what the last finished chunk left. */
  reset(bytes: number): void {
    if (bytes === 0) rmSync(this.path, { force: true });
    else if (existsSync(this.path)) truncateSync(this.path, bytes);
  }

  /** Appends `rows` (with the header line first when the file is new); returns its length. */
  append(rows: RejectedRow[], currentBytes: number): number {
    if (rows.length === 0) return currentBytes;
    const records = rows.map((row) =>
      [String(row.line), row.field, row.message, ...row.cells].map(escapeFormula),
    );
    if (currentBytes === 0)
      records.unshift(['line', 'field', 'message', ...this.headers].map(escapeFormula));
    const text = Buffer.from(stringify(records));
    const fd = openSync(this.path, currentBytes === 0 ? 'w' : 'a');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return currentBytes + text.length;
  }
}
