/**
 * The architecture's import rules (docs/architecture.md#layering-rules), checked in CI by
 * `npm run lint:architecture`. A rule names what it protects; `comment` says why.
 */

const {
  SHARED,
  FEATURE,
  FACE,
  COMPOSITION_ROOTS,
  EDGE,
  THREAD_CONSTANTS,
} = require('./scripts/architecture-features.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'feature-face',
      severity: 'error',
      comment:
        "A feature imports another only through its face, the other's index.ts: types too (a type couples the code that names it). Its repositories and helpers are its own.",
      from: { path: FEATURE, pathNot: [`^src/${SHARED}/`, COMPOSITION_ROOTS] },
      to: {
        path: '^src/[^/]+/',
        pathNot: ['^src/$1/', `^src/${SHARED}/`, FACE, THREAD_CONSTANTS],
      },
    },
    {
      name: 'dashboard-kernel-for-edges',
      severity: 'error',
      comment:
        "The dashboard kernel (src/dashboard-kernel/: guards, @DashboardAccess, input checks, error responses) is used by the features' http/ folders, the OpenAPI documents and the application's assembly; a domain file never needs it.",
      from: {
        path: '^src/',
        pathNot: [EDGE, '^src/(dashboard-kernel|openapi)/', '^src/app[.](module|factory)[.]ts$'],
      },
      to: { path: '^src/dashboard-kernel/' },
    },
    {
      name: 'dashboard-kernel-no-feature-edge',
      severity: 'error',
      comment: 'The dashboard kernel knows no feature route: it imports no http/ folder.',
      from: { path: '^src/dashboard-kernel/' },
      to: { path: EDGE },
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
        path: '^src/(audit|campaigns|delivery|idempotency|leads|transformations|users|webhooks)/',
        pathNot: `${EDGE}|[.](controller|guard|interceptor|pipe|filter|decorator|hook)[.]ts$|[.]spec[.]ts$`,
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
      to: { circular: true },
    },
    {
      name: 'domain-below-edge',
      severity: 'error',
      comment:
        "A feature's routes (its http/ folder) sit above its domain: nothing but another edge or a composition root imports an http/ folder.",
      from: { path: '^src/[^/]+/', pathNot: [EDGE, COMPOSITION_ROOTS] },
      to: { path: EDGE },
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
