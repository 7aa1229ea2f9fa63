/**
 * Operator CLI entrypoint (`npm run cli -- <command>`, `node dist/cli.js <command>`), docs/cli.md.
 * Node's on-disk compile cache is enabled before anything else is loaded: operators and
 * scripts start the CLI over and over, and most of a run is compiling the same modules.
 */
import * as nodeModule from 'node:module';

// Node ≥ 22.1; a no-op where it is missing.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// Loaded after the cache is on (a static import would be hoisted above it); tracing, when asked
// for, starts before the modules it instruments load (docs/operations.md#traces).
void import('./tracing')
  .then(() => import('./cli/run-cli'))
  .then(({ runCli, fail }) => runCli().catch(fail));
