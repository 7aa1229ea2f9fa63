#!/usr/bin/env node
/**
 * Exchanges an API key for a bearer token, uploads leads to a campaign and times the upload:
 *
 *   node scripts/upload-leads.mjs --api-key KEY --campaign ID [--count 10000] [--file body.json]
 *     [--base-url http://127.0.0.1:3000] [--invalid 0.02] [--duplicates 0] [--seed N]
 *
 * The key may come from CAMPAIGN_API_KEY instead of --api-key. With --file the body is read
 * from that file (its campaign_id replaced by --campaign); otherwise --count fake leads are
 * generated (fake-leads.mjs). Prints one JSON document on stdout:
 * `{status, elapsed_ms, leads_per_second, response}`, where `response` is the API's answer
 * with `errors` replaced by `error_count` and `first_errors` (the first 5). A non-2xx answer
 * or a bad argument exits 1 with one line on stderr. Neither the key nor the token is printed.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fakeLeads } from './fake-leads.mjs';
import { argHelpers } from './lib/cli-args.mjs';

const USAGE =
  'usage: node scripts/upload-leads.mjs --api-key KEY --campaign ID [--count N] [--file FILE] ' +
  '[--base-url URL] [--invalid 0..1] [--duplicates 0..1] [--seed N]';
const FIRST_ERRORS = 5;

const { fail, integer, share } = argHelpers('upload-leads');

/** `POST` a JSON body; returns the status and the parsed body (or its text if not JSON). */
async function postJson(url, body, headers = {}) {
  let response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });
  } catch (error) {
    fail(`cannot reach ${url}: ${error.cause?.code ?? error.cause?.message ?? error.message}`);
  }
  const text = await response.text();
  try {
    return { status: response.status, ok: response.ok, body: JSON.parse(text) };
  } catch {
    return { status: response.status, ok: response.ok, body: text };
  }
}

/** One line describing an error answer: `HTTP 401 unauthorized: <message>`. */
function describe({ status, body }) {
  if (body && typeof body === 'object' && 'error' in body) {
    return `HTTP ${status} ${body.error}: ${body.message}`;
  }
  return `HTTP ${status} ${String(body).replace(/\s+/g, ' ').slice(0, 200)}`;
}

/** The response body with `errors` replaced, in place, by `error_count` and `first_errors`. */
function summarize(body) {
  if (!body || typeof body !== 'object' || !Array.isArray(body.errors)) return body;
  const summary = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'errors') {
      summary.error_count = value.length;
      summary.first_errors = value.slice(0, FIRST_ERRORS);
    } else {
      summary[key] = value;
    }
  }
  return summary;
}

let values;
let positionals;
try {
  ({ values, positionals } = parseArgs({
    allowPositionals: true, // reported below without echoing them: one might be the key
    options: {
      'api-key': { type: 'string' },
      campaign: { type: 'string' },
      count: { type: 'string', default: '10000' },
      file: { type: 'string' },
      'base-url': { type: 'string', default: 'http://127.0.0.1:3000' },
      invalid: { type: 'string', default: '0' },
      duplicates: { type: 'string', default: '0' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail(`${error.message}; ${USAGE}`);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (positionals.length > 0) fail(`unexpected positional argument; ${USAGE}`);

const apiKey = values['api-key'] ?? process.env.CAMPAIGN_API_KEY;
if (!apiKey) fail(`an API key is required (--api-key or CAMPAIGN_API_KEY); ${USAGE}`);
if (values.campaign === undefined) fail(`--campaign is required; ${USAGE}`);
const campaignId = integer('campaign', values.campaign, 1);
let baseUrl;
try {
  baseUrl = new URL(values['base-url']).href.replace(/\/+$/, '');
} catch {
  fail(`--base-url is not a valid URL: "${values['base-url']}"`);
}

let body;
if (values.file !== undefined) {
  try {
    body = JSON.parse(readFileSync(values.file, 'utf8'));
  } catch (error) {
    fail(`cannot read ${values.file}: ${error.message}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    fail(`${values.file} must hold a JSON object (an upload body)`);
  }
  body.campaign_id = campaignId;
} else {
  const count = integer('count', values.count, 1);
  const options = {
    invalidShare: share('invalid', values.invalid),
    duplicateShare: share('duplicates', values.duplicates),
    seed: values.seed === undefined ? undefined : integer('seed', values.seed, 0),
  };
  let leads;
  try {
    leads = fakeLeads(count, options);
  } catch (error) {
    fail(error.message);
  }
  body = { campaign_id: campaignId, compliance_acknowledged: true, source: 'demo', leads };
}

const token = await postJson(
  `${baseUrl}/api/v1/auth/api-key/token`,
  JSON.stringify({ api_key: apiKey }),
);
if (!token.ok || typeof token.body?.access_token !== 'string') {
  fail(`token exchange failed: ${describe(token)}`);
}

const payload = JSON.stringify(body);
const leadCount = Array.isArray(body.leads) ? body.leads.length : 0;
const started = performance.now();
const upload = await postJson(`${baseUrl}/api/v1/leads/upload`, payload, {
  Authorization: `Bearer ${token.body.access_token}`,
});
const elapsedMs = performance.now() - started;

const report = {
  status: upload.status,
  elapsed_ms: Math.round(elapsedMs * 10) / 10,
  leads_per_second: Math.round(leadCount / (elapsedMs / 1000)),
  response: summarize(upload.body),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (!upload.ok) {
  process.stderr.write(`upload-leads: upload failed: ${describe(upload)}\n`);
  process.exitCode = 1;
}
