import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ROOT,
  readEntityTables,
  readModules,
  readTableAccess,
} from '../test/support/architecture-source';

/**
 * docs/architecture.md#modules-and-tables held to the SQL: each table has one owning module,
 * which alone writes it; another module reads it only through a read model the guide declares
 * (docs/architecture.md#read-models). The tables each file touches are read from its SQL text
 * and its TypeORM calls (test/support/architecture-source.ts), so the guide cannot drift again.
 */

/** The guide's section `heading` (a `##` or `###` title), up to the next heading of any level. */
function section(heading: string): string {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "${heading}"`);
  const end = text.slice(start + heading.length + 2).search(/\n#{2,3} /);
  return end < 0 ? text.slice(start) : text.slice(start, start + heading.length + 2 + end);
}

/** The cells of each row of the Markdown tables in `text` (header and rule rows left out). */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

/** The code-quoted words of a cell that are table names. */
const tablesIn = (cell: string, known: Set<string>) =>
  [...cell.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]).filter((word) => known.has(word));

const moduleName = (cell: string) => /^`(\w+)`/.exec(cell)?.[1] ?? cell;

describe('docs/architecture.md, table ownership', () => {
  const entityTables = readEntityTables();
  const known = new Set(entityTables.values());
  const modules = readModules();
  /** A row per module: the tables its second column names are the tables it owns. */
  const ownerRows = (heading: string) =>
    rows(section(heading)).map(
      (cells) => [moduleName(cells[0]), tablesIn(cells[1] ?? '', known)] as const,
    );
  /** Domain module → its tables (the process roots own only `deployment`, read at start). */
  const domainOwners = new Map(ownerRows('### Domain modules'));
  const owners = new Map([...domainOwners, ...ownerRows('### Root modules')]);
  /** Read model (a repository class) → its module and the other modules' tables it reads. */
  const readModels = new Map(
    rows(section('### Read models')).map(
      (cells) =>
        [
          moduleName(cells[0]),
          { module: moduleName(cells[1]), reads: tablesIn(cells[2], known) },
        ] as const,
    ),
  );
  const access = readTableAccess();
  const moduleOfProvider = new Map<string, string[]>();
  for (const module of modules) {
    for (const provider of module.providers) {
      moduleOfProvider.set(provider, [...(moduleOfProvider.get(provider) ?? []), module.name]);
    }
  }

  it('gives every table exactly one owning module', () => {
    const ownersOf = new Map<string, string[]>([...known].map((table) => [table, []]));
    for (const [module, tables] of owners) {
      for (const table of tables) ownersOf.get(table)!.push(module);
    }
    expect(
      [...ownersOf].filter(([, modules]) => modules.length !== 1).map(([table]) => table),
    ).toEqual([]);
  });

  it('has each domain module register with TypeORM exactly the tables the guide says it owns', () => {
    const registered = Object.fromEntries(
      modules
        .filter(({ tables, name }) => tables.length > 0 || domainOwners.has(name))
        .map(({ name, tables }) => [name, tables.sort()]),
    );
    const claimed = Object.fromEntries(
      [...domainOwners].map(([name, tables]) => [name, [...tables].sort()]),
    );
    expect(registered).toEqual(claimed);
  });

  it('finds every table-touching file in exactly one module', () => {
    const homeless = access
      .map(({ file, classes }) => ({
        file,
        modules: [...new Set(classes.flatMap((name) => moduleOfProvider.get(name) ?? []))],
      }))
      .filter(({ modules }) => modules.length !== 1);
    expect(homeless).toEqual([]);
  });

  it('writes a table only from its owning module', () => {
    const strayWrites = access.flatMap(({ file, classes, writes }) => {
      const [module] = new Set(classes.flatMap((name) => moduleOfProvider.get(name) ?? []));
      const owned = new Set(owners.get(module) ?? []);
      return [...writes]
        .filter((table) => !owned.has(table))
        .map((table) => `${file} (${module}) writes ${table}`);
    });
    expect(strayWrites).toEqual([]);
  });

  it("reads another module's table only through a declared read model", () => {
    const strayReads = access.flatMap(({ file, classes, reads }) => {
      const [module] = new Set(classes.flatMap((name) => moduleOfProvider.get(name) ?? []));
      const allowed = new Set(owners.get(module) ?? []);
      for (const name of classes) {
        const model = readModels.get(name);
        if (model?.module === module) model.reads.forEach((table) => allowed.add(table));
      }
      return [...reads]
        .filter((table) => !allowed.has(table))
        .map((table) => `${file} (${module}) reads ${table}`);
    });
    expect(strayReads).toEqual([]);
  });

  it('declares read models that are providers of the module named, reading tables it does not own', () => {
    const wrong = [...readModels].flatMap(([name, { module, reads }]) => {
      const problems: string[] = [];
      if (!(moduleOfProvider.get(name) ?? []).includes(module)) {
        problems.push(`${name} is not a provider of ${module}`);
      }
      const owned = new Set(owners.get(module) ?? []);
      if (reads.length === 0 || reads.some((table) => owned.has(table))) {
        problems.push(`${name} must list only tables ${module} does not own`);
      }
      return problems;
    });
    expect(wrong).toEqual([]);
  });
});
