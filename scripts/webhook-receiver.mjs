#!/usr/bin/env node
// A local webhook receiver for trying the service: verifies each delivery's Standard Webhooks
// signature, prints one JSON line per delivery on stdout, and answers 204 (or 401 when the
// signature does not verify). With a `whsec_` secret it verifies the `v1` HMAC signature with
// the `standardwebhooks` package; with a `whpk_` public key it verifies the `v1a` ed25519
// signature with Node's crypto.verify alone (docs/webhooks.md#asymmetric-signatures).
//
//   node scripts/webhook-receiver.mjs --secret whsec_... [--port 4000] [--status 204]
//   node scripts/webhook-receiver.mjs --public-key whpk_... [--port 4000] [--status 204]
//   (or WEBHOOK_SECRET=whsec_... / WEBHOOK_PUBLIC_KEY=whpk_... node scripts/webhook-receiver.mjs)
import { createPublicKey, verify } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

let values;
try {
  ({ values } = parseArgs({
    options: {
      secret: { type: 'string' },
      'public-key': { type: 'string' },
      port: { type: 'string', default: '4000' },
      status: { type: 'string', default: '204' },
    },
  }));
} catch (error) {
  process.stderr.write(`webhook-receiver: ${error.message}\n`);
  process.exit(1);
}
const publicKey = values['public-key'] ?? process.env.WEBHOOK_PUBLIC_KEY;
const secret = publicKey ? undefined : (values.secret ?? process.env.WEBHOOK_SECRET);
if (publicKey ? !publicKey.startsWith('whpk_') : !secret?.startsWith('whsec_')) {
  process.stderr.write(
    'webhook-receiver: give the endpoint secret with --secret whsec_... (or WEBHOOK_SECRET), or its public key with --public-key whpk_... (or WEBHOOK_PUBLIC_KEY)\n',
  );
  process.exit(1);
}
const webhook = publicKey ? ed25519Verifier(publicKey) : new Webhook(secret);

/**
 * A verifier of `v1a` (ed25519) signatures with a `whpk_` public key, shaped like the
 * `standardwebhooks` package's: `verify(body, headers)` returns the parsed body, or throws.
 */
function ed25519Verifier(whpk) {
  const raw = Buffer.from(whpk.slice('whpk_'.length), 'base64');
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  return {
    verify(body, headers) {
      const timestamp = Number(headers['webhook-timestamp']);
      if (!(Math.abs(Date.now() / 1000 - timestamp) <= 300)) throw new Error('stale timestamp');
      const signed = Buffer.from(
        `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`,
      );
      const ok = String(headers['webhook-signature'] ?? '')
        .split(' ')
        .filter((entry) => entry.startsWith('v1a,'))
        .some((entry) => verify(null, signed, key, Buffer.from(entry.slice(4), 'base64')));
      if (!ok) throw new Error('no v1a signature verifies with the public key');
      return JSON.parse(body);
    },
  };
}
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
