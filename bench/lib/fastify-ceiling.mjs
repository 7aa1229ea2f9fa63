// The read ceiling for bench/run.mjs, run as a child process (fork, with an IPC channel): a
// bare Fastify server (no plugins, no logger, no auth, no database) answering every GET with
// the JSON object in BENCH_BODY, serialised by Fastify exactly like the API's own answer, so
// both send bodies of the same size. Sends { type: 'ready', port } once listening; exits on
// SIGTERM or when the parent goes away.
import Fastify from 'fastify';

const body = JSON.parse(process.env.BENCH_BODY ?? '{}');
const app = Fastify({ logger: false });
app.get('/*', async () => body);

await app.listen({ port: 0, host: '127.0.0.1' });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
process.send({ type: 'ready', port: app.server.address().port });
