import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * docs/architecture.md#modules-and-tables checked against the code, so the guide cannot drift:
 * every Nest module the code declares is listed once, at its file; every table a module
 * registers with `TypeOrmModule.forFeature` and every provider it exports is named in its row.
 */
const ROOT = resolve(__dirname, '..');

interface DeclaredModule {
  name: string;
  file: string;
  /** Declared but not exported: a helper module of its file, named in another module's row. */
  internal: boolean;
  /** Tables of the entities passed to `TypeOrmModule.forFeature`. */
  tables: string[];
  /** Exported providers (other modules re-exported are left out). */
  exports: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

function decorator(node: ts.ClassDeclaration, name: string): ts.CallExpression | undefined {
  for (const modifier of ts.getDecorators(node) ?? []) {
    const call = modifier.expression;
    if (ts.isCallExpression(call) && ts.isIdentifier(call.expression)) {
      if (call.expression.text === name) return call;
    }
  }
  return undefined;
}

function property(object: ts.Expression | undefined, name: string): ts.Expression | undefined {
  if (!object || !ts.isObjectLiteralExpression(object)) return undefined;
  for (const member of object.properties) {
    if (ts.isPropertyAssignment(member) && member.name.getText() === name) {
      return member.initializer;
    }
  }
  return undefined;
}

function identifiers(array: ts.Expression | undefined): string[] {
  if (!array || !ts.isArrayLiteralExpression(array)) return [];
  return array.elements.filter(ts.isIdentifier).map((element) => element.text);
}

/** Every `@Module` class and every `@Entity` class's table, read with the TypeScript parser. */
function readCode(): { modules: DeclaredModule[] } {
  const entityTables = new Map<string, string>();
  const modules: Array<DeclaredModule & { entities: string[] }> = [];
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const source = ts.createSourceFile(
      path,
      readFileSync(path, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const exported = (node: ts.Node) =>
      ts
        .getModifiers(node as ts.HasModifiers)
        ?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) ?? false;
    const visit = (node: ts.Node): void => {
      // A module built by a function call (`BullModule.forRootAsync(…)`) and exported as a constant.
      if (ts.isVariableStatement(node) && exported(node)) {
        for (const declaration of node.declarationList.declarations) {
          const name = declaration.name.getText(source);
          if (name.endsWith('Module')) {
            modules.push({
              name,
              file: relative(ROOT, path),
              entities: [],
              tables: [],
              exports: [],
              internal: false,
            });
          }
        }
      }
      if (ts.isClassDeclaration(node) && node.name) {
        const entity = decorator(node, 'Entity');
        const argument = entity?.arguments[0];
        const table =
          argument && ts.isObjectLiteralExpression(argument)
            ? property(argument, 'name')
            : argument;
        if (table && ts.isStringLiteral(table)) entityTables.set(node.name.text, table.text);
        const module = decorator(node, 'Module');
        if (module) {
          const metadata = module.arguments[0];
          const imports = property(metadata, 'imports');
          const entities: string[] = [];
          if (imports && ts.isArrayLiteralExpression(imports)) {
            for (const element of imports.elements) {
              if (
                ts.isCallExpression(element) &&
                element.expression.getText(source) === 'TypeOrmModule.forFeature'
              ) {
                entities.push(...identifiers(element.arguments[0]));
              }
            }
          }
          modules.push({
            name: node.name.text,
            file: relative(ROOT, path),
            // Not exported: a part of its file's module, named in that module's row.
            internal: !exported(node),
            entities,
            tables: [],
            exports: identifiers(property(metadata, 'exports')).filter(
              (name) => !name.endsWith('Module'),
            ),
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return {
    modules: modules.map(({ entities, ...module }) => ({
      ...module,
      tables: entities.map((entity) => entityTables.get(entity) ?? `<no @Entity for ${entity}>`),
    })),
  };
}

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
  const { modules } = readCode();
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
});
