import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import boundaries of the dashboard app (docs/architecture.md#dashboard-app-web), checked
 * through the repository's own ESLint config (eslint.config.mjs) as `npm run lint` runs it:
 * code is linted as if it were the file at `filePath` (an existing file, so that the typed rules
 * find it in web/tsconfig.json).
 */
// Not `new URL('../..', import.meta.url)`: Vite rewrites that pattern as an asset's URL.
const REPO_ROOT = decodeURIComponent(import.meta.url.replace(/^file:\/\//, '')).replace(
  /web\/src\/[^/]+$/,
  '',
);

/** A file in the imports feature, one in the shared lib/ and one in the shared components/. */
const IN_FEATURE = 'web/src/features/imports/components/import-history.tsx';
const IN_LIB = 'web/src/lib/format.ts';
const IN_COMPONENTS = 'web/src/components/ui/load-more.tsx';

let eslint: ESLint;

/** The messages of `no-restricted-imports` for `code` linted as the file at `filePath`. */
async function boundaryErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}${filePath}` });
  const fatal = result.messages.filter((message) => message.fatal);
  expect(fatal).toEqual([]);
  return result.messages
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('the dashboard import boundaries in eslint.config.mjs', { timeout: 180_000 }, () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: REPO_ROOT, overrideConfigFile: `${REPO_ROOT}eslint.config.mjs` });
  });

  it('fails a feature importing another feature, by a sibling path or through features/', async () => {
    const sibling = await boundaryErrors(
      "import { useCampaignEndpoints } from '../../campaigns/api/queries';\nexport const use = useCampaignEndpoints;\n",
      IN_FEATURE,
    );
    expect(sibling).toEqual([
      expect.stringContaining('A feature never imports another feature (features/imports here)'),
    ]);
    const throughSrc = await boundaryErrors(
      "import { LeadSearch } from '../../../features/leads/components/lead-search';\nexport const Search = LeadSearch;\n",
      IN_FEATURE,
    );
    expect(throughSrc).toEqual([
      expect.stringContaining('A feature never imports another feature'),
    ]);
  });

  it('fails a feature importing the app', async () => {
    const errors = await boundaryErrors(
      "import { routes } from '../../../app/router';\nexport const all = routes;\n",
      IN_FEATURE,
    );
    expect(errors).toEqual([expect.stringContaining('A feature never imports the app')]);
  });

  it('fails shared lib/ and components/ importing a feature or the app', async () => {
    const fromLib = await boundaryErrors(
      "import { useCampaignEndpoints } from '../features/campaigns/api/queries';\nexport const use = useCampaignEndpoints;\n",
      IN_LIB,
    );
    expect(fromLib).toEqual([expect.stringContaining('Shared code (components/, hooks/, lib/)')]);
    const fromComponents = await boundaryErrors(
      "import { pageTitle } from '../../app/page-title';\nexport const title = pageTitle;\n",
      IN_COMPONENTS,
    );
    expect(fromComponents).toEqual([expect.stringContaining('Shared code')]);
  });

  it('passes a feature importing its own folders and the shared code', async () => {
    const errors = await boundaryErrors(
      [
        "import { useCampaignImports } from '../api/queries';",
        "import { useCampaigns } from '../../../api/campaigns';",
        "import { PagedTable } from '../../../components/ui/paged-table';",
        "import { formatDuration } from '../../../lib/format';",
        'export const all = [useCampaignImports, useCampaigns, PagedTable, formatDuration];',
        '',
      ].join('\n'),
      IN_FEATURE,
    );
    expect(errors).toEqual([]);
  });
});
