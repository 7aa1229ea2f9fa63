/**
 * `campaign-api-import`: uploads a CSV of leads into a campaign (docs/client.md#the-csv-importer).
 *
 *   CAMPAIGN_API_KEY=capi_… campaign-api-import leads.csv --campaign 3 --compliance-acknowledged
 *
 * Exit codes: 0 imported, no row rejected · 3 imported, some rows rejected, by this run or an
 * earlier one it resumed (see the .rejected.csv) · 1 failed (an API error, no answer after the retries, a redirect to another
 * origin, an unreadable CSV) · 2 bad usage · 130 interrupted (Ctrl-C; run the same command
 * again to resume).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { CampaignApiClient } from '../client';
import { CampaignApiError, CampaignApiNetworkError, CampaignApiRedirectError } from '../errors';
import { importCsv, importPaths, MAX_CHUNK_ROWS, type ImportProgress } from './importer';
import { parseMapFlags } from './mapping';

export const EXIT = { ok: 0, failed: 1, usage: 2, rejected: 3, interrupted: 130 } as const;

const USAGE = `usage: campaign-api-import FILE.csv --campaign ID --compliance-acknowledged [options]

  --campaign ID               campaign to import into (required)
  --compliance-acknowledged   confirm you have permission to contact these leads (required)
  --base-url URL              the service (default $CAMPAIGN_API_URL or http://127.0.0.1:3000)
  --map FIELD=HEADER          take FIELD (phone, email, first_name, last_name, company, title)
                              from the column HEADER; repeatable
  --source NAME               the imports' source (default "api")
  --tags A,B                  tags for every lead
  --chunk-size N              rows per upload, 1 to 10000 (default 10000)
  --restart                   forget an earlier run's progress and rejected rows
  --api-key-file PATH         read the API key from PATH instead of $CAMPAIGN_API_KEY

The API key comes from $CAMPAIGN_API_KEY (or --api-key-file), never from a flag.
Exit: 0 done, 3 done with rejected rows, 1 failed, 2 usage, 130 interrupted (re-run resumes).`;

class UsageError extends Error {}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      campaign: { type: 'string' },
      'compliance-acknowledged': { type: 'boolean', default: false },
      'base-url': { type: 'string' },
      map: { type: 'string', multiple: true, default: [] },
      source: { type: 'string' },
      tags: { type: 'string' },
      'chunk-size': { type: 'string', default: String(MAX_CHUNK_ROWS) },
      restart: { type: 'boolean', default: false },
      'api-key-file': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true as const };
  if (positionals.length !== 1) throw new UsageError('give exactly one CSV file');
  const campaignId = Number(values.campaign);
  if (!values.campaign || !/^\d+$/.test(values.campaign) || campaignId < 1) {
    throw new UsageError('--campaign must be a campaign id (a positive whole number)');
  }
  if (!values['compliance-acknowledged']) {
    throw new UsageError(
      '--compliance-acknowledged is required: it confirms you have permission to contact ' +
        'these leads, and is recorded with every import',
    );
  }
  const chunkSize = Number(values['chunk-size']);
  if (!/^\d+$/.test(values['chunk-size']) || chunkSize < 1 || chunkSize > MAX_CHUNK_ROWS) {
    throw new UsageError(`--chunk-size must be a whole number from 1 to ${MAX_CHUNK_ROWS}`);
  }
  const baseUrl = values['base-url'] ?? process.env.CAMPAIGN_API_URL ?? 'http://127.0.0.1:3000';
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url is not a URL: ${baseUrl}`);
  }
  let apiKey = process.env.CAMPAIGN_API_KEY;
  if (values['api-key-file'] !== undefined) {
    try {
      apiKey = readFileSync(values['api-key-file'], 'utf8').trim();
    } catch (error) {
      throw new UsageError(`cannot read --api-key-file: ${(error as Error).message}`);
    }
  }
  if (!apiKey) throw new UsageError('set CAMPAIGN_API_KEY (or --api-key-file) to your API key');
  let map;
  try {
    map = parseMapFlags(values.map);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const tags = values.tags
    ?.split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  return {
    help: false as const,
    file: positionals[0],
    campaignId,
    baseUrl,
    apiKey,
    map,
    source: values.source,
    tags,
    chunkSize,
    restart: values.restart,
  };
}

const formatSeconds = (s: number) =>
  !Number.isFinite(s)
    ? '?'
    : s >= 3600
      ? `${Math.floor(s / 3600)}h${Math.round((s % 3600) / 60)}m`
      : s >= 60
        ? `${Math.floor(s / 60)}m${Math.round(s % 60)}s`
        : `${Math.round(s)}s`;

/** Rate and ETA from what this run uploaded: rows/s, and the file's remaining bytes at its pace. */
function pace(p: ImportProgress): { rate: number; eta: string } {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? p.uploadedRows / seconds : 0;
  const bytesPerSecond = seconds > 0 ? p.uploadedBytes / seconds : 0;
  const eta =
    bytesPerSecond > 0 ? formatSeconds((p.totalBytes - p.bytesRead) / bytesPerSecond) : '?';
  return { rate: Math.round(rate), eta };
}

/** Runs the importer with `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parse(argv);
  } catch (error) {
    process.stderr.write(`campaign-api-import: ${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort(new Error(`interrupted (${signal})`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const tty = process.stderr.isTTY === true;
  const bar = tty
    ? new SingleBar({
        format: '{bar} {percentage}% | {rows} rows | {rate} rows/s | ETA {eta}',
        hideCursor: true,
        stream: process.stderr,
      })
    : undefined;
  let lastLine = 0;
  const client = new CampaignApiClient({
    baseUrl: args.baseUrl,
    apiKey: args.apiKey,
    onRetry: (event) =>
      log(
        `retrying ${event.method} ${event.path} in ${(event.delayMs / 1000).toFixed(1)} s ` +
          `(attempt ${event.attempt}: ${event.status ?? ''} ${event.reason})`.replace('  ', ' '),
      ),
  });
  try {
    const summary = await importCsv(client, {
      file: args.file,
      campaignId: args.campaignId,
      chunkSize: args.chunkSize,
      map: args.map,
      source: args.source,
      tags: args.tags,
      restart: args.restart,
      signal: controller.signal,
      onNotice: log,
      onMapping: (mapping, headers) => {
        const used = Object.entries(mapping.columns).map(
          ([field, i]) => `${field} <- "${headers[i]}"`,
        );
        log(
          `columns: ${used.join(', ')}${mapping.ignored.length ? `; ignored: ${mapping.ignored.join(', ')}` : ''}`,
        );
        bar?.start(100, 0, { rows: 0, rate: 0, eta: '?' });
      },
      onProgress: (p) => {
        const { rate, eta } = pace(p);
        const percent = p.totalBytes > 0 ? (100 * p.bytesRead) / p.totalBytes : 100;
        if (bar) bar.update(Math.floor(percent), { rows: p.rows, rate, eta });
        else if (Date.now() - lastLine >= 1000 || p.bytesRead >= p.totalBytes) {
          lastLine = Date.now();
          log(
            `chunk ${p.chunk + 1}${p.skipped ? ' (done in an earlier run)' : ''}: ${p.rows} rows, ` +
              `${Math.floor(percent)}%, ${rate} rows/s, ETA ${eta}`,
          );
        }
      },
    });
    bar?.stop();
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    log(
      `imported ${summary.imported}, duplicates ${summary.duplicates}, rejected ${summary.rejected}` +
        ` in ${formatSeconds(summary.elapsed_ms / 1000)}` +
        (summary.chunks_resumed > 0
          ? `; ${summary.rows_resumed} rows (${summary.chunks_resumed} ${summary.chunks_resumed === 1 ? 'chunk' : 'chunks'}) ` +
            'done by an earlier run, not sent again'
          : '') +
        (summary.rejected_file ? `; rejected rows are in ${summary.rejected_file}` : ''),
    );
    // The import as a whole, resumed chunks included, has rejected rows while the file has any.
    return summary.rejected_file ? EXIT.rejected : EXIT.ok;
  } catch (error) {
    bar?.stop();
    const { state } = importPaths(args.file);
    if (controller.signal.aborted) {
      log(
        `campaign-api-import: interrupted; finished chunks are recorded in ${state}: run the same command again to resume`,
      );
      return EXIT.interrupted;
    }
    if (error instanceof CampaignApiError) {
      log(
        `campaign-api-import: HTTP ${error.status} ${error.error}: ${error.message}` +
          `${error.requestId ? ` (request ${error.requestId})` : ''}`,
      );
    } else if (error instanceof CampaignApiRedirectError) {
      log(
        `campaign-api-import: ${error.message}` +
          `${error.suggestedBaseUrl ? ` (--base-url ${error.suggestedBaseUrl})` : ''}`,
      );
    } else if (error instanceof CampaignApiNetworkError) {
      log(`campaign-api-import: ${error.message}; run the same command again to resume`);
    } else {
      log(`campaign-api-import: ${(error as Error).message}`);
    }
    return EXIT.failed;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
