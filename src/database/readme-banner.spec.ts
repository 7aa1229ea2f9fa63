import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from './migrations';

describe('README start-up banner', () => {
  it('shows as many migrations applied as a new database gets', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const shown = readme.match(/database campaign_api: (\d+) migrations applied\./);
    expect(shown).not.toBeNull();
    expect(Number(shown![1])).toBe(MIGRATIONS.length);
  });
});
