// Webhook receiver for bench/run.mjs, run as a child process (fork, with an IPC channel).
//
// Answers every request with 204 once its body is read, and notes when each one arrived on
// process.hrtime (CLOCK_MONOTONIC: the same clock in every process of the machine, so the
// parent can compare these times with its own). It keeps the first webhook it receives (body
// and Standard Webhooks headers) as the sample the raw-POST ceiling sends.
//
// IPC, parent → child (every answer carries the request's `id`):
//   { cmd: 'wait', n, from, timeoutMs } → when n requests have arrived (or after timeoutMs):
//       { count, timedOut, fromAt: arrival time of request #from (0-based), lastAt: of #n-1,
//         distinctIds: distinct webhook-id headers so far }
//   { cmd: 'sample' } → { sample: { body, headers } | null }
// Child → parent once listening: { type: 'ready', port }. Exits when the parent goes away.
import { createServer } from 'node:http';

const now = () => Number(process.hrtime.bigint()) / 1e6;
const SAMPLE_HEADERS = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

const arrivals = []; // arrival time (ms, hrtime) of every request, in order
const ids = new Set(); // distinct webhook-id headers
let sample = null;
let waiters = [];

const server = createServer((req, res) => {
  const keep = sample === null && req.headers['webhook-id'] !== undefined;
  const chunks = [];
  req.on('data', (chunk) => keep && chunks.push(chunk));
  req.on('end', () => {
    arrivals.push(now());
    if (req.headers['webhook-id']) ids.add(req.headers['webhook-id']);
    if (keep && sample === null) {
      const headers = {};
      for (const name of SAMPLE_HEADERS) headers[name] = req.headers[name];
      sample = { body: Buffer.concat(chunks).toString(), headers };
    }
    res.statusCode = 204;
    res.end();
    if (waiters.length > 0) settle();
  });
});
server.keepAliveTimeout = 30_000;

function answer(waiter, timedOut) {
  clearTimeout(waiter.timer);
  const last = Math.min(waiter.n, arrivals.length) - 1;
  process.send({
    id: waiter.id,
    count: arrivals.length,
    timedOut,
    fromAt: arrivals[waiter.from] ?? null,
    lastAt: last >= 0 ? arrivals[last] : null,
    distinctIds: ids.size,
  });
}

function settle() {
  waiters = waiters.filter((waiter) => {
    if (arrivals.length < waiter.n) return true;
    answer(waiter, false);
    return false;
  });
}

process.on('message', (message) => {
  if (message.cmd === 'wait') {
    const waiter = { ...message };
    if (arrivals.length >= waiter.n) return answer(waiter, false);
    waiter.timer = setTimeout(() => {
      waiters = waiters.filter((w) => w !== waiter);
      answer(waiter, true);
    }, waiter.timeoutMs);
    waiters.push(waiter);
  } else if (message.cmd === 'sample') {
    process.send({ id: message.id, sample });
  }
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
