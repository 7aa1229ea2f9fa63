import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, readModules } from '../test/support/architecture-source';

/**
 * docs/architecture.md#modules-and-tables checked against the code, so the guide cannot drift:
 * every Nest module the code declares is listed once, at its file; every table a module
 * registers with `TypeOrmModule.forFeature` and every provider it exports is named in its row;
 * modules export services, never repositories, and register each provider once; in the two
 * features split into sub-features (`src/delivery`, `src/leads`) each folder is one module
 * exporting one service (docs/architecture.md#folders).
 */

/** The module rows of the guide's "Modules and tables" section: name → its file and row. */
function readGuide(): Map<string, { file: string; row: string }> {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = text.indexOf('\n## Modules and tables');
  const end = text.indexOf('\n## ', start + 1);
  const rows = new Map<string, { file: string; row: string }>();
  let previousFile = '';
  for (const line of text.slice(start, end).split('\n')) {
    const match = /^\| `(\w+Module)` \((?:`([^`]+)`[^)]*|same file)\)/.exec(line);
    if (!match) continue;
    const file = match[2] ?? previousFile;
    previousFile = file;
    rows.set(match[1], { file, row: line });
  }
  return rows;
}

describe('docs/architecture.md, modules and tables', () => {
  const modules = readModules();
  const guide = readGuide();

  it('lists every module the code declares, at its file, and no other', () => {
    expect(Object.fromEntries([...guide].map(([name, { file }]) => [name, file]))).toEqual(
      Object.fromEntries(
        modules.filter((module) => !module.internal).map(({ name, file }) => [name, file]),
      ),
    );
  });

  it('finds every module in a *.module.ts file', () => {
    expect(modules.filter(({ file }) => !file.endsWith('.module.ts'))).toEqual([]);
  });

  it("names in each module's row the tables it registers and the providers it exports", () => {
    const rowsOfFile = (file: string) =>
      [...guide.values()]
        .filter((entry) => entry.file === file)
        .map((entry) => entry.row)
        .join('\n');
    const missing = modules.flatMap(({ name, file, internal, tables, exports }) => {
      const row = internal ? rowsOfFile(file) : (guide.get(name)?.row ?? '');
      if (internal && !row.includes(`\`${name}\``)) return [`${file}: ${name}`];
      return [...tables, ...exports]
        .filter((word) => !row.includes(`\`${word}\``))
        .map((word) => `${name}: ${word}`);
    });
    expect(missing).toEqual([]);
  });

  it('has no module export a repository', () => {
    expect(
      modules.flatMap(({ name, exports }) =>
        exports
          .filter((provider) => provider.endsWith('Repository'))
          .map((provider) => `${name}: ${provider}`),
      ),
    ).toEqual([]);
  });

  it('registers each provider in one module only', () => {
    const modulesOf = new Map<string, string[]>();
    for (const { name, providers } of modules) {
      for (const provider of providers)
        modulesOf.set(provider, [...(modulesOf.get(provider) ?? []), name]);
    }
    expect([...modulesOf].filter(([, names]) => names.length > 1)).toEqual([]);
  });

  it('makes each folder of src/delivery and src/leads one module exporting one service', () => {
    const split = modules.filter(({ file }) => /^src\/(delivery|leads)\/[^/]+\//.test(file));
    const byFolder = new Map<string, string[]>();
    for (const { file, name } of split) {
      byFolder.set(dirname(file), [...(byFolder.get(dirname(file)) ?? []), name]);
    }
    expect([...byFolder].filter(([, names]) => names.length !== 1)).toEqual([]);
    // An HTTP edge (routes only) and a module only the process roots load export nothing.
    const importedByAModule = (name: string) =>
      modules.some(({ imports }) => imports.includes(name));
    expect(
      split
        .filter(({ name, exports, hasControllers }) =>
          exports.length === 0 ? !hasControllers && importedByAModule(name) : exports.length > 1,
        )
        .map(({ name, exports }) => `${name} exports ${exports.join(', ') || 'nothing'}`),
    ).toEqual([]);
  });

  it("draws exactly the code's module imports in the dependency diagram", () => {
    const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const start = text.indexOf('```mermaid', text.indexOf('\n## Module dependencies'));
    const diagram = text.slice(start, text.indexOf('```\n', start + 3));
    const drawn = [...diagram.matchAll(/^ {2}(\w+) --> (\w+)$/gm)].map(
      ([, from, to]) => `${from} → ${to}`,
    );
    const declared = new Set(modules.map(({ name }) => name));
    const roots = new Set(['AppModule', 'WorkerModule', 'CliModule']);
    const imported = modules
      .filter(({ name }) => !roots.has(name))
      .flatMap(({ name, imports }) =>
        imports
          .filter((target) => declared.has(target) && !roots.has(target) && target !== name)
          .map((target) => `${name} → ${target}`),
      );
    expect([...new Set(drawn)].sort()).toEqual([...new Set(imported)].sort());
  });
});
