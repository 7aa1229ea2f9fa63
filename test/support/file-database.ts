import { copyTemplate } from './databases';
import { TEST_DATABASE_URL } from './env';

// Before the test file's own hooks: its database, a copy of the migrated template.
beforeAll(() => copyTemplate(TEST_DATABASE_URL), 60_000);
