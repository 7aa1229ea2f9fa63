#!/usr/bin/env node
/**
 * Writes the JSON body of a `POST /api/v1/leads/upload` with fake leads (see fake-leads.mjs):
 *
 *   node scripts/generate-leads.mjs --count 10000 [--campaign 1] [--invalid 0.02]
 *     [--duplicates 0] [--seed 42] [--out leads.json]
 *
 * The body goes to --out, or to stdout; a one-line summary goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fakeLeads } from './fake-leads.mjs';
import { argHelpers } from './lib/cli-args.mjs';

const USAGE =
  'usage: node scripts/generate-leads.mjs --count N [--campaign ID] [--invalid 0..1] ' +
  '[--duplicates 0..1] [--seed N] [--out FILE]';

const { fail, integer, share } = argHelpers('generate-leads');

let values;
try {
  ({ values } = parseArgs({
    options: {
      count: { type: 'string', default: '10000' },
      campaign: { type: 'string', default: '1' },
      invalid: { type: 'string', default: '0' },
      duplicates: { type: 'string', default: '0' },
      seed: { type: 'string' },
      out: { type: 'string' },
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

const count = integer('count', values.count, 1);
const campaignId = integer('campaign', values.campaign, 1);
const invalidShare = share('invalid', values.invalid);
const duplicateShare = share('duplicates', values.duplicates);
const seed = values.seed === undefined ? undefined : integer('seed', values.seed, 0);

let leads;
try {
  leads = fakeLeads(count, { seed, invalidShare, duplicateShare });
} catch (error) {
  fail(error.message);
}
const body = { campaign_id: campaignId, compliance_acknowledged: true, source: 'demo', leads };
const json = `${JSON.stringify(body)}\n`;
if (values.out) {
  try {
    writeFileSync(values.out, json);
  } catch (error) {
    fail(`cannot write ${values.out}: ${error.message}`);
  }
} else {
  process.stdout.write(json);
}

const invalid = Math.round(count * invalidShare);
const duplicates = Math.round(count * duplicateShare);
const kib = Buffer.byteLength(json) / 1024;
const size = kib < 1024 ? `${kib.toFixed(1)} KiB` : `${(kib / 1024).toFixed(2)} MiB`;
process.stderr.write(
  `generate-leads: ${count} leads (${invalid} invalid, ${duplicates} duplicate phones, ` +
    `seed ${seed ?? 'random'}) for campaign ${campaignId}, ${size} -> ${values.out ?? 'stdout'}\n`,
);
