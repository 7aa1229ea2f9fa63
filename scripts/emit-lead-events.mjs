#!/usr/bin/env node
// Records webhook events through the compiled service's own outbox publisher
// (`WebhookEventPublisher.publish`, one transaction per call), many in one process: what the CLI's
// `event emit` does once per process start, for the fault suite and the benchmarks that need
// thousands of `lead.status_changed` events (test/fault/per-lead-ordering.fault-spec.ts,
// bench/measures/ordering.mjs). No HTTP route records them; the CLI would start a process per
// event.
//
// Run as an IPC child (child_process.fork) with the service's environment (DATABASE_URL,
// REDIS_URL, QUEUE_PREFIX, JWT_SECRET, …; `EMIT_DIST` names the compiled service, default
// <repo>/dist). Once the publisher is up it sends { type: 'ready' }. Then, for each
//   { id, cmd: 'emit', campaignId, chains: [[[input, …], …], …], lanes }
// it publishes every chain's transactions one after another (each `[input, …]` is one publish:
// one transaction, its events in that order), `lanes` chains at once, and answers
//   { id, transactions, events, ms }      or      { id, error }.
// A chain is the unit of order: its transactions commit in order, the next one starting only
// after the previous one committed (and its deliveries were queued). { cmd: 'close' } (or the
// parent going away) closes the application and exits 0.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(process.env.EMIT_DIST ?? join(root, 'dist'));
const require = createRequire(join(dist, 'cli.js'));

require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const { loadConfig } = require(join(dist, 'config/app-config.js'));
const { CliModule } = require(join(dist, 'cli/cli.module.js'));
const { QueueRootModule } = require(join(dist, 'queue/queue-root.module.js'));
const { CampaignsModule } = require(join(dist, 'campaigns/campaigns.module.js'));
const { DeliveryModule, WebhookEventPublisher } = require(join(dist, 'delivery/outbox/index.js'));

const config = loadConfig();
config.warnings = [];
// The CLI's module with the publisher and its queue, and no command.
const app = await NestFactory.createApplicationContext(
  CliModule.forRoot(
    config,
    [{ commands: [], imports: [CampaignsModule, DeliveryModule] }],
    [QueueRootModule],
  ),
  { logger: ['error', 'warn'] },
);
const publisher = app.get(WebhookEventPublisher);

async function emit({ campaignId, chains, lanes = 8 }) {
  const startedAt = Date.now();
  let next = 0;
  let transactions = 0;
  let events = 0;
  const lane = async () => {
    while (next < chains.length) {
      for (const inputs of chains[next++]) {
        await publisher.publish(campaignId, inputs);
        transactions += 1;
        events += inputs.length;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, chains.length)) }, lane));
  return { transactions, events, ms: Date.now() - startedAt };
}

let closing = false;
async function close() {
  if (closing) return;
  closing = true;
  await app.close();
  process.exit(0);
}

process.on('message', (message) => {
  if (message?.cmd === 'close') return void close();
  if (message?.cmd !== 'emit') return;
  emit(message).then(
    (done) => process.send({ id: message.id, ...done }),
    (error) => process.send({ id: message.id, error: String(error?.stack ?? error) }),
  );
});
process.on('disconnect', () => void close());
process.on('SIGTERM', () => void close());
process.send({ type: 'ready' });
