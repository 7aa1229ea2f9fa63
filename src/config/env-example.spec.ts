import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const read = (file: string) => readFileSync(join(__dirname, '..', '..', file), 'utf8');

/** Every variable the configuration loader reads, from its source. */
function variablesRead(): string[] {
  const source = read('src/config/app-config.ts');
  const names = [...source.matchAll(/\b(?:get|int|bool|url)\('([A-Z][A-Z0-9_]+)'/g)].map(
    (match) => match[1],
  );
  return [...new Set(names)].sort();
}

/** Every variable `.env.example` lists, set or commented out (`# NAME=`). */
function variablesListed(): string[] {
  const names = [...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map(
    (match) => match[1],
  );
  return [...new Set(names)].sort();
}

describe('.env.example', () => {
  it('lists exactly the variables the configuration loader reads', () => {
    expect(variablesRead().length).toBeGreaterThan(15);
    expect(variablesListed()).toEqual(variablesRead());
  });
});
