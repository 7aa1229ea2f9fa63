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

/**
 * A lead-screening thread loads the validator and its libraries only: no face (a face loads
 * its feature's module and entities), no TypeORM, no Nest. Each thread runs in a 32 MiB heap;
 * with the leads and history faces loaded it held 25 MiB before checking a lead and checked
 * half as fast (docs/architecture.md#lead-validation-cost).
 */
const SCREENING_THREAD_LEAN = {
  name: 'screening-thread-lean',
  severity: 'error',
  comment:
    'A lead-screening thread (32 MiB heap) loads the validator only: no index.ts face, TypeORM or Nest.',
  from: { path: '^src/leads/upload/lead-screening[.]worker[.]ts$' },
  to: {
    reachable: true,
    path: ['^src/.*/index[.]ts$', 'node_modules/(typeorm|@nestjs)/'],
  },
};

/**
 * A spreadsheet parse thread loads the readers and the column mapping only, like a screening
 * thread: its heap is bounded too (docs/security.md#spreadsheet-uploads), and through the leads
 * face it loaded 343 modules, 295 of them TypeORM's, before reading a row.
 */
const PARSE_THREAD_LEAN = {
  name: 'parse-thread-lean',
  severity: 'error',
  comment:
    'A spreadsheet parse thread (bounded heap) loads the readers and the column mapping only: no index.ts face, TypeORM or Nest.',
  from: { path: '^src/leads/spreadsheet/sheet-parse[.]worker[.]ts$' },
  to: SCREENING_THREAD_LEAN.to,
};

/**
 * A transformation thread loads the QuickJS engine and the output rules only, like a screening
 * thread: each of the sandbox's threads runs customer code (docs/security.md#transformation-sandbox)
 * and gains nothing from Nest or TypeORM.
 */
const TRANSFORMATION_THREAD_LEAN = {
  name: 'transformation-thread-lean',
  severity: 'error',
  comment:
    'A transformation thread loads the QuickJS engine and the output rules only: no index.ts face, TypeORM or Nest.',
  from: { path: '^src/transformations/transformation[.]worker[.]ts$' },
  to: SCREENING_THREAD_LEAN.to,
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    WORKER_WITHOUT_HTTP,
    SCREENING_THREAD_LEAN,
    PARSE_THREAD_LEAN,
    TRANSFORMATION_THREAD_LEAN,
  ],
  options: { ...base.options, tsPreCompilationDeps: false },
};
