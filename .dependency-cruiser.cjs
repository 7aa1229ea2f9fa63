/**
 * The architecture's import rules (docs/architecture.md#layering-rules), checked in CI by
 * `npm run lint:architecture`. A rule names what it protects; `comment` says why.
 */

/**
 * Folders every feature may use: they import no feature. `redis` builds every Redis
 * connection; `tracing` holds the hooks that are no-ops while tracing is off.
 */
const SHARED = '(common|config|database|redis|tracing)';
/**
 * What a feature offers the others: its Nest modules, the services, publishers, limiters and
 * hooks they export, its queues' definitions, entities (for TypeORM relations), guards,
 * decorators, interceptors and DTOs (for edges), its vocabulary (`*.constants.ts`: event types,
 * audit actions, roles) and its domain errors. Everything else in a feature folder is internal.
 */
const PUBLIC_SURFACE =
  '[.](module|service|entity|guard|decorator|interceptor|publisher|queue|limiter|hook|dto|constants)[.]ts$|-errors[.]ts$|/index[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'feature-internals',
      severity: 'error',
      comment:
        'A feature uses another only through what its module offers (modules, exported services, entities, guards, errors); its repositories and helpers are its own.',
      from: { path: '^src/([^/]+)/', pathNot: `^src/(${SHARED.slice(1, -1)}|cli|openapi)/` },
      to: {
        path: '^src/([^/]+)/',
        // The dashboard kernel (src/dashboard-kernel/) is the toolkit of every feature's http/
        // folder: its use is limited by dashboard-kernel-for-edges.
        pathNot: [`^src/$1/`, `^src/${SHARED}/`, '^src/dashboard-kernel/', PUBLIC_SURFACE],
        // A type crosses freely (it is erased at build time and couples no behaviour); a value
        // only through the public surface.
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'dashboard-kernel-for-edges',
      severity: 'error',
      comment:
        "The dashboard kernel (src/dashboard-kernel/: guards, @DashboardAccess, input checks, error responses) is used by the features' http/ folders, the OpenAPI documents and the application's assembly; a domain file never needs it.",
      from: {
        path: '^src/',
        pathNot: '^src/(dashboard-kernel|openapi|[^/]+/http)/|^src/app[.](module|factory)[.]ts$',
      },
      to: { path: '^src/dashboard-kernel/' },
    },
    {
      name: 'dashboard-kernel-no-feature-edge',
      severity: 'error',
      comment: 'The dashboard kernel knows no feature route: it imports no http/ folder.',
      from: { path: '^src/dashboard-kernel/' },
      to: { path: '^src/[^/]+/http/' },
    },
    {
      name: 'shared-imports-no-feature',
      severity: 'error',
      comment: 'common/, config/ and database/ are below every feature: they never import one.',
      from: { path: `^src/${SHARED}/` },
      to: { path: '^src/', pathNot: `^src/${SHARED}/` },
    },
    {
      name: 'domain-without-http',
      severity: 'error',
      comment:
        'Domain files (services, repositories, runners, entities) know nothing of HTTP: no Fastify, passport or HTTP error types; controllers, guards and the dashboard edge translate.',
      from: {
        path: '^src/(audit|campaigns|delivery|idempotency|leads|users|webhooks)/',
        pathNot:
          '[.](controller|guard|interceptor|pipe|filter|decorator|hook)[.]ts$|/dto/|/http/|[.]spec[.]ts$',
      },
      to: {
        path: [
          'node_modules/(fastify|@fastify|passport|passport-jwt|@nestjs/passport|@nestjs/platform-fastify)/',
          '^src/common/(api-error|error-envelope[.]filter)[.]ts$',
        ],
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make module initialisation order fragile.',
      from: { path: '^src/' },
      to: { circular: true, pathNot: '[.]entity[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '[.]spec[.]ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
