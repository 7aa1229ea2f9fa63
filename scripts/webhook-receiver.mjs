#!/usr/bin/env node
// A local webhook receiver for trying the service: verifies each delivery's Standard Webhooks
// signature with the `standardwebhooks` package, prints one JSON line per delivery on stdout,
// and answers 204 (or 401 when the signature does not verify).
//
//   node scripts/webhook-receiver.mjs --secret whsec_... [--port 4000] [--status 204]
//   (or WEBHOOK_SECRET=whsec_... node scripts/webhook-receiver.mjs)
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

let values;
try {
  ({ values } = parseArgs({
    options: {
      secret: { type: 'string' },
      port: { type: 'string', default: '4000' },
      status: { type: 'string', default: '204' },
    },
  }));
} catch (error) {
  process.stderr.write(`webhook-receiver: ${error.message}\n`);
  process.exit(1);
}
const secret = values.secret ?? process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  process.stderr.write(
    'webhook-receiver: give the endpoint secret with --secret whsec_... or WEBHOOK_SECRET\n',
  );
  process.exit(1);
}
const webhook = new Webhook(secret);
const status = Number(values.status);

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let line;
    try {
      const event = webhook.verify(body, {
        'webhook-id': req.headers['webhook-id'],
        'webhook-timestamp': req.headers['webhook-timestamp'],
        'webhook-signature': req.headers['webhook-signature'],
      });
      line = {
        verified: true,
        webhook_id: req.headers['webhook-id'],
        type: event.type,
        data: event.data,
      };
      res.statusCode = status;
    } catch (error) {
      line = {
        verified: false,
        webhook_id: req.headers['webhook-id'] ?? null,
        error: error.message,
      };
      res.statusCode = 401;
    }
    process.stdout.write(JSON.stringify({ received_at: new Date().toISOString(), ...line }) + '\n');
    res.end();
  });
});
server.listen(Number(values.port), '127.0.0.1', () => {
  process.stderr.write(`webhook-receiver: listening on http://127.0.0.1:${values.port}/hooks\n`);
});
process.on('SIGINT', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
