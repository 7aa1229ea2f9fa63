import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

describe('generated types (src/generated/schema.ts)', () => {
  it('are what openapi-typescript makes of the committed openapi.json (regenerate: npm run client:types)', () => {
    // In a child process: openapi-typescript and the generator are ES modules.
    const source = pathToFileURL(join(__dirname, '..', 'scripts', 'schema-source.mjs')).href;
    const fresh = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { generateSchema } = await import(${JSON.stringify(source)});` +
          'process.stdout.write(await generateSchema());',
      ],
      { encoding: 'utf8' },
    );
    const committed = readFileSync(join(__dirname, '..', 'src', 'generated', 'schema.ts'), 'utf8');
    expect(committed).toBe(fresh);
  });
});
