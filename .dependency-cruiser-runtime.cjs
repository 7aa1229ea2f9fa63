/**
 * The rules about what a process loads at run time (docs/architecture.md#layering-rules): the imports
 * TypeScript keeps after compiling (`tsPreCompilationDeps: false`), so a type-only import,
 * which loads nothing, does not count. Run by `npm run lint:architecture`.
 */
const base = require('./.dependency-cruiser.cjs');

/**
 * The worker process loads no HTTP server, authentication or dashboard code.
 */
const WORKER_WITHOUT_HTTP = {
  name: 'worker-without-http',
  severity: 'error',
  comment:
    'The worker process loads no HTTP server, authentication or dashboard code (only entities of those modules, for TypeORM relations).',
  from: { path: '^src/worker[.]ts$' },
  to: {
    reachable: true,
    path: [
      '^src/(auth|dashboard-kernel|dashboard-web|rate-limit|health|openapi|users)/',
      // Each feature's HTTP edge (controllers, DTOs, their modules), and the public upload route.
      '^src/[^/]+/http/',
      '^src/leads/upload-api/',
      'node_modules/(@nestjs/(passport|jwt|platform-fastify|swagger|terminus|throttler)|passport|passport-jwt|fastify|@fastify)/',
    ],
    // Entities (and the vocabulary they use) of those modules, for TypeORM relations: data,
    // not HTTP code.
    // `@fastify/otel`: the tracing SDK, loaded only when tracing is on, registers Fastify's
    // instrumentation in every process; it patches Fastify only where Fastify is loaded.
    pathNot: [
      'node_modules/@fastify/otel/',
      // Every process root registers every entity (ENTITY_METADATA, src/entities.ts).
      '^src/(auth|users)/[^/]+[.]entity[.]ts$',
      '^src/users/dashboard-roles[.]constants[.]ts$',
    ],
  },
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [WORKER_WITHOUT_HTTP],
  options: { ...base.options, tsPreCompilationDeps: false },
};
