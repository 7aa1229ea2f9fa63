/**
 * What a feature is, for the import rules (docs/architecture.md#layering-rules): shared by
 * `.dependency-cruiser.cjs` and `scripts/check-feature-cycles.mjs`.
 */

/**
 * Folders every feature may use: they import no feature. `redis` builds every Redis
 * connection; `queue` the BullMQ connection and its namespace (`QueueRootModule`); `tracing`
 * holds the hooks that are no-ops while tracing is off.
 */
const SHARED = '(common|config|database|queue|redis|tracing)';

/**
 * A feature: a folder under `src/`, except that
 * - each sub-folder of the two features split into sub-features, `src/delivery/` and
 *   `src/leads/`, is a feature of its own (`leads/upload`); a file directly in `src/leads/` (the
 *   entities its sub-features share) belongs to `leads`;
 * - a feature's `http/` folder, its routes, is a feature of its own (`webhooks/http`): an edge
 *   above the domain, which may use the domain, the dashboard kernel and other features, while
 *   the domain never uses it.
 * Group 1 names the feature.
 */
const FEATURE = '^src/((?:delivery|leads)/[^/]+(?=/)|[^/]+/http(?=/)|[^/]+)/';

/** A feature's one importable face: its `index.ts`. */
const FACE = '^src/((?:delivery|leads)/[^/]+|[^/]+/http|[^/]+)/index[.]ts$';

/**
 * Composition roots: they wire the modules of a process and may import any file. The files
 * directly in `src/` (`app.module.ts`, `worker.module.ts`, the entry points) are in no
 * feature; `src/cli/` maps each command group to the modules it loads; `src/openapi/` builds
 * the API documents from the application's modules.
 */
const COMPOSITION_ROOTS = '^src/(cli|openapi)/';

/**
 * The HTTP edges above the domain: each feature's `http/` folder (its dashboard routes, and for
 * `webhooks` the public reads) and `src/leads/upload-api/` (the public upload route, a module of
 * its own because each OpenAPI document takes whole modules).
 */
const EDGE = '/http/|^src/leads/upload-api/';

/**
 * Files another feature may import directly besides a face: the leads' field list, which the
 * lead-screening and spreadsheet parse threads load. Through `src/leads/index.ts` each thread would also load every
 * leads entity, TypeORM and Nest: 922 modules instead of 327 and 25 of its 32 MiB of heap,
 * which made its checks twice as slow (docs/architecture.md#lead-validation-cost). It imports
 * nothing.
 */
const THREAD_CONSTANTS = '^src/leads/lead-fields[.]constants[.]ts$';

module.exports = { SHARED, FEATURE, FACE, COMPOSITION_ROOTS, EDGE, THREAD_CONSTANTS };
