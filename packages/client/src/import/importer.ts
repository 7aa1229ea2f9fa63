import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parse } from 'csv-parse';
import type { CampaignApiClient, LeadInput, LeadUploadRequest } from '../client';
import { LEAD_FIELDS, mapHeaders, type HeaderMapping, type LeadField } from './mapping';
import { RejectedFile, type RejectedRow } from './rejected-file';
import { fileSha256, ResumeState, type ChunkRecord } from './resume-state';

/** The API's limit of leads per upload. */
export const MAX_CHUNK_ROWS = 10_000;
/** A chunk also ends once its leads reach this many bytes of JSON (the API takes 16 MiB). */
const MAX_CHUNK_BYTES = 8 * 1024 * 1024;

/** What {@link importCsv} needs. */
export interface ImportOptions {
  /** The CSV file: a header row, then one lead per row (UTF-8, an optional BOM). */
  file: string;
  campaignId: number;
  /** Rows per upload, 1 to 10,000 (default 10,000). */
  chunkSize?: number;
  /** `--map field=Header` choices (see mapHeaders). */
  map?: Partial<Record<LeadField, string>>;
  /** The upload's `source` (default: the API's, `"api"`). */
  source?: string;
  /** The upload's `tags`, applied to every lead. */
  tags?: string[];
  /** Forget the resume state and the rejected rows of an earlier run. */
  restart?: boolean;
  /**
   * Told, in one line, why an earlier run's resume state was set aside (another service, API
   * key, campaign or file content; unreadable) before the import starts afresh.
   */
  onNotice?: (line: string) => void;
  /** Stops the import between or during uploads; rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Told once the header is mapped. */
  onMapping?: (mapping: HeaderMapping, headers: string[]) => void;
  /** Told after every chunk, uploaded or skipped. */
  onProgress?: (progress: ImportProgress) => void;
}

/** Where the import stands, after a chunk. */
export interface ImportProgress {
  /** Bytes of the file read so far, and its size: the basis of the percentage and ETA. */
  bytesRead: number;
  totalBytes: number;
  /** Rows (leads) read so far, skipped chunks included. */
  rows: number;
  /** Rows uploaded by this run, and the bytes they took in the file. */
  uploadedRows: number;
  uploadedBytes: number;
  /** ms since this run started uploading. */
  elapsedMs: number;
  chunk: number;
  skipped: boolean;
}

/**
 * The outcome of one run over a file. `imported`, `duplicates` and `rejected` count what the
 * service answered to the chunks this run sent (a replayed answer is the service's record of
 * the chunk); chunks an earlier run finished are not sent again and are counted apart, in
 * `chunks_resumed` and `rows_resumed`, never as imported by this run.
 */
export interface ImportSummary {
  file: string;
  campaign_id: number;
  /** Data rows in the file. */
  rows: number;
  /** Chunks in the file. */
  chunks: number;
  /** Chunks an earlier run had finished (same service, key, campaign and file): not sent again. */
  chunks_resumed: number;
  /** Data rows in those chunks. */
  rows_resumed: number;
  /** Chunks this run sent that the service had already stored and replayed (`Idempotent-Replayed`). */
  chunks_replayed: number;
  /** Leads stored (valid and new), by the chunks this run sent. */
  imported: number;
  /** Valid leads of the chunks this run sent whose phone the campaign already had: skipped. */
  duplicates: number;
  /** Rows of the chunks this run sent that the service rejected. */
  rejected: number;
  /** Where every rejected row of the file is (resumed chunks' included); null when none. */
  rejected_file: string | null;
  elapsed_ms: number;
  rows_per_second: number;
}

/** `<file>.rejected.csv` and `<file>.import-state.json`, beside the input. */
export function importPaths(file: string): { rejected: string; state: string } {
  return { rejected: `${file}.rejected.csv`, state: `${file}.import-state.json` };
}

/**
 * The Idempotency-Key of a chunk: a SHA-256 of its position and its exact request body (the
 * file's rows after mapping, the campaign, source and tags). The same file and flags give the
 * same keys on every run, so a chunk whose answer was lost is replayed, not stored twice; a
 * changed chunk gets a new key.
 */
export function chunkKey(index: number, body: string): string {
  return `csv-import-${createHash('sha256').update(`${index}\n${body}`).digest('hex')}`;
}

interface Row {
  line: number;
  cells: string[];
}

/**
 * Streams `options.file` through csv-parse (never holding more than one chunk), uploads it
 * in chunks of up to `chunkSize` rows with one derived Idempotency-Key each, skips the chunks
 * a previous run finished (`<file>.import-state.json`) when that run was against the same
 * service, API key, campaign and file content (else starts afresh and tells `onNotice`), and
 * writes the rows the service rejected to `<file>.rejected.csv` with their line, field,
 * message and original cells. The file is read twice: once for its SHA-256, once to upload.
 * See docs/client.md#the-csv-importer.
 *
 * @throws Error for a file that cannot be read or parsed, or without a phone column
 * @throws CampaignApiError / CampaignApiNetworkError when an upload fails for good
 * @throws the signal's reason when aborted (finished chunks stay recorded)
 */
export async function importCsv(
  client: CampaignApiClient,
  options: ImportOptions,
): Promise<ImportSummary> {
  const chunkSize = options.chunkSize ?? MAX_CHUNK_ROWS;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_CHUNK_ROWS) {
    throw new Error(`chunk size must be a whole number from 1 to ${MAX_CHUNK_ROWS}`);
  }
  const totalBytes = statSync(options.file).size;
  const paths = importPaths(options.file);
  const binding = {
    service: client.serviceUrl,
    key: client.keyFingerprint,
    campaign_id: options.campaignId,
    file_sha256: await fileSha256(options.file, options.signal),
  };
  const { state, notice } = ResumeState.load(paths.state, binding, options.restart ?? false);
  if (notice) options.onNotice?.(notice);
  const started = performance.now();

  const parser = createReadStream(options.file).pipe(
    parse({ bom: true, info: true, skip_empty_lines: true, relax_column_count: true }),
  );
  let headers: string[] | undefined;
  let mapping: HeaderMapping | undefined;
  let rejected: RejectedFile | undefined;
  let rejectedBytes = state.data.rejected_bytes;
  let chunk: { rows: Row[]; leads: LeadInput[]; bytes: number } = { rows: [], leads: [], bytes: 0 };
  let chunkIndex = 0;
  let rows = 0;
  let bytesRead = 0;
  let uploadedRows = 0;
  let uploadedBytes = 0;
  let uploadStartBytes = 0;
  let lastEndLine = 0;
  let lastSkippedLines = 0;
  const totals = {
    chunks: 0,
    resumed: 0,
    rowsResumed: 0,
    replayed: 0,
    imported: 0,
    duplicates: 0,
    rejected: 0,
  };

  /** Counts a chunk this run sent, as the service answered it. */
  const count = (record: ChunkRecord) => {
    totals.imported += record.valid - record.duplicates;
    totals.duplicates += record.duplicates;
    totals.rejected += record.invalid;
  };

  const flush = async () => {
    if (chunk.rows.length === 0) return;
    const index = chunkIndex++;
    const body: LeadUploadRequest = {
      campaign_id: options.campaignId,
      compliance_acknowledged: true,
      ...(options.source === undefined ? {} : { source: options.source }),
      ...(options.tags === undefined ? {} : { tags: options.tags }),
      leads: chunk.leads,
    };
    const key = chunkKey(index, JSON.stringify(body));
    const done = state.done(key);
    let skipped = false;
    totals.chunks++;
    if (done) {
      skipped = true;
      totals.resumed++;
      totals.rowsResumed += chunk.rows.length;
    } else {
      options.signal?.throwIfAborted();
      const result = await client.uploadLeads(body, {
        idempotencyKey: key,
        signal: options.signal,
      });
      const { report } = result;
      if (result.replayed) totals.replayed++;
      const rejectedRows: RejectedRow[] = report.errors.map((error) => {
        const row = chunk.rows[error.row];
        return { line: row.line, field: error.var_field, message: error.message, cells: row.cells };
      });
      rejectedBytes = rejected!.append(rejectedRows, rejectedBytes);
      const record: ChunkRecord = {
        index,
        rows: chunk.rows.length,
        valid: report.valid_count,
        invalid: report.invalid_count,
        duplicates: report.duplicate_count,
      };
      state.complete(key, record, rejectedBytes);
      count(record);
      uploadedRows += chunk.rows.length;
      uploadedBytes += bytesRead - uploadStartBytes;
    }
    uploadStartBytes = bytesRead;
    options.onProgress?.({
      bytesRead,
      totalBytes,
      rows,
      uploadedRows,
      uploadedBytes,
      elapsedMs: performance.now() - started,
      chunk: index,
      skipped,
    });
    chunk = { rows: [], leads: [], bytes: 0 };
  };

  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number; empty_lines: number; comment_lines: number; bytes: number };
  }>) {
    // The record's first line: after the previous record's last line and any blank lines.
    const skippedLines = info.empty_lines + info.comment_lines;
    const line = lastEndLine + 1 + (skippedLines - lastSkippedLines);
    [lastEndLine, lastSkippedLines] = [info.lines, skippedLines];
    if (!headers) {
      headers = record;
      mapping = mapHeaders(headers, options.map);
      options.onMapping?.(mapping, headers);
      rejected = new RejectedFile(paths.rejected, headers);
      rejected.reset(rejectedBytes);
      uploadStartBytes = info.bytes;
      continue;
    }
    const lead = toLead(record, mapping!);
    const leadBytes = Buffer.byteLength(JSON.stringify(lead));
    if (chunk.rows.length > 0 && chunk.bytes + leadBytes > MAX_CHUNK_BYTES) await flush();
    chunk.rows.push({ line, cells: record });
    chunk.leads.push(lead);
    chunk.bytes += leadBytes;
    rows++;
    bytesRead = info.bytes;
    if (chunk.rows.length >= chunkSize) await flush();
  }
  if (!headers) throw new Error(`${options.file} is empty: expected a header row`);
  bytesRead = totalBytes;
  await flush();

  const elapsedMs = performance.now() - started;
  return {
    file: options.file,
    campaign_id: options.campaignId,
    rows,
    chunks: totals.chunks,
    chunks_resumed: totals.resumed,
    rows_resumed: totals.rowsResumed,
    chunks_replayed: totals.replayed,
    imported: totals.imported,
    duplicates: totals.duplicates,
    rejected: totals.rejected,
    rejected_file: rejectedBytes > 0 ? paths.rejected : null,
    elapsed_ms: Math.round(elapsedMs),
    rows_per_second: elapsedMs > 0 ? Math.round(uploadedRows / (elapsedMs / 1000)) : 0,
  };
}

/** The lead of one row: the phone always (blank is the API's to reject), others when not blank. */
function toLead(record: string[], mapping: HeaderMapping): LeadInput {
  const lead: Record<string, string> = {};
  for (const field of LEAD_FIELDS) {
    const column = mapping.columns[field];
    if (column === undefined) continue;
    const value = record[column] ?? '';
    if (field === 'phone' || value.trim() !== '') lead[field] = value;
  }
  return lead as unknown as LeadInput;
}
