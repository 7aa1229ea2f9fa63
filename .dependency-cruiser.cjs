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
 * A feature: a folder under `src/`, except that each sub-folder of the two features split into
 * sub-features, `src/delivery/` and `src/leads/`, is a feature of its own (`leads/upload`). A
 * file directly in `src/leads/` (the entities its sub-features share) belongs to `leads`.
 * Group 1 names the feature.
 */
const FEATURE = '^src/((?:delivery|leads)/[^/]+(?=/)|[^/]+)/';
/** A feature's one importable face: its `index.ts`. */
const FACE = '^src/((?:delivery|leads)/[^/]+|[^/]+)/index[.]ts$';
/**
 * Composition roots: they wire the modules of a process and may import any file. The files
 * directly in `src/` (`app.module.ts`, `worker.module.ts`, the entry points) are in no
 * feature; `src/cli/` maps each command group to the modules it loads; `src/openapi/` builds
 * the API documents from the application's modules.
 */
const COMPOSITION_ROOTS = '^src/(cli|openapi)/';

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
        pathNot: ['^src/$1/', `^src/${SHARED}/`, FACE],
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
          '/http/|[.](controller|guard|interceptor|pipe|filter|decorator|hook)[.]ts$|[.]spec[.]ts$',
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
      name: 'no-feature-cycles',
      severity: 'error',
      comment:
        'Features form a hierarchy: no folder reaches back to a folder that reaches it. A feature that takes part in retention or metrics registers a discovered provider instead of being imported by them.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
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
