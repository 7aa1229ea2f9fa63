#!/usr/bin/env node
// The `campaign-api-import` command: runs the compiled importer (dist/import/cli.js). In this
// repository, `npm run import:csv -- …` at the root builds it first when it is missing or stale.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'import', 'cli.js');
if (!existsSync(cli)) {
  process.stderr.write(
    'campaign-api-import: not built yet: run `npm run build --workspace @campaign-api/client` ' +
      '(or `npm run import:csv -- …` at the repository root, which builds it)\n',
  );
  process.exit(2);
}
require(cli)
  .main(process.argv.slice(2))
  .then((code) => (process.exitCode = code));
