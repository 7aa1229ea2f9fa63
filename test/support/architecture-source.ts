import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The service's structure as the code declares it, read with the TypeScript parser, for the
 * tests that hold docs/architecture.md to the code (src/architecture-doc.spec.ts,
 * src/table-ownership.spec.ts): every Nest module with its providers, exports and registered
 * tables, every entity's table, and every table each file reads or writes.
 */
export const ROOT = resolve(__dirname, '../..');

/** One `@Module` class, or a module built by a call and exported as a constant. */
export interface DeclaredModule {
  name: string;
  /** Path from the repository's root, e.g. `src/campaigns/campaigns.module.ts`. */
  file: string;
  /** Declared but not exported: a helper module of its file, named in another module's row. */
  internal: boolean;
  /** Tables of the entities passed to `TypeOrmModule.forFeature`. */
  tables: string[];
  /** Class names listed in `providers`. */
  providers: string[];
  /** Exported providers (modules, re-exported, are left out). */
  exports: string[];
  /** Modules listed in `imports` by name (dynamic modules built by a call are left out). */
  imports: string[];
  /** Whether it registers controllers: an HTTP edge. */
  hasControllers: boolean;
}

/** How a file touches a table. */
export type TableAccess = 'read' | 'write';

/** The tables one source file reads and writes, through SQL text or TypeORM calls. */
export interface FileTableAccess {
  file: string;
  /** Classes the file declares (a repository's class, to find its module). */
  classes: string[];
  reads: Set<string>;
  writes: Set<string>;
}

/** Every `.ts` file under `dir` that is not a test. */
export function sourceFiles(dir: string): string[] {
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

function exported(node: ts.Node): boolean {
  return (
    ts
      .getModifiers(node as ts.HasModifiers)
      ?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) ?? false
  );
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Entity class name → its table, for every `@Entity` under `src/`. */
export function readEntityTables(): Map<string, string> {
  const tables = new Map<string, string>();
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name) {
        const argument = decorator(node, 'Entity')?.arguments[0];
        const table =
          argument && ts.isObjectLiteralExpression(argument)
            ? property(argument, 'name')
            : argument;
        if (table && ts.isStringLiteral(table)) tables.set(node.name.text, table.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(parse(path));
  }
  return tables;
}

/** Every Nest module under `src/`. */
export function readModules(): DeclaredModule[] {
  const entityTables = readEntityTables();
  const modules: DeclaredModule[] = [];
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const source = parse(path);
    const file = relative(ROOT, path);
    const visit = (node: ts.Node): void => {
      // A module built by a function call (`BullModule.forRootAsync(…)`) and exported as a constant.
      if (ts.isVariableStatement(node) && exported(node)) {
        for (const declaration of node.declarationList.declarations) {
          const name = declaration.name.getText(source);
          if (name.endsWith('Module')) {
            modules.push({
              name,
              file,
              internal: false,
              tables: [],
              providers: [],
              exports: [],
              imports: [],
              hasControllers: false,
            });
          }
        }
      }
      if (ts.isClassDeclaration(node) && node.name) {
        const module = decorator(node, 'Module');
        if (module) {
          const metadata = module.arguments[0];
          const imports = property(metadata, 'imports');
          const tables: string[] = [];
          if (imports && ts.isArrayLiteralExpression(imports)) {
            for (const element of imports.elements) {
              if (
                ts.isCallExpression(element) &&
                element.expression.getText(source) === 'TypeOrmModule.forFeature'
              ) {
                for (const entity of identifiers(element.arguments[0])) {
                  tables.push(entityTables.get(entity) ?? `<no @Entity for ${entity}>`);
                }
              }
            }
          }
          modules.push({
            name: node.name.text,
            file,
            // Not exported: a part of its file's module, named in that module's row.
            internal: !exported(node),
            tables,
            providers: identifiers(property(metadata, 'providers')),
            exports: identifiers(property(metadata, 'exports')).filter(
              (name) => !name.endsWith('Module'),
            ),
            imports: identifiers(imports),
            hasControllers: identifiers(property(metadata, 'controllers')).length > 0,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return modules;
}

/** TypeORM calls whose first argument is an entity class, by what they do to its table. */
const TYPEORM_WRITES = new Set([
  'InjectRepository',
  'getRepository',
  'insert',
  'update',
  'upsert',
  'delete',
  'save',
  'remove',
  'softDelete',
  'increment',
  'decrement',
  'into',
]);
const TYPEORM_READS = new Set([
  'find',
  'findOne',
  'findOneBy',
  'findBy',
  'findAndCount',
  'count',
  'countBy',
  'exists',
  'existsBy',
  'createQueryBuilder',
  'from',
  'leftJoin',
  'innerJoin',
  'leftJoinAndSelect',
  'innerJoinAndSelect',
]);

/** A SQL keyword followed by a table name: what the statement does to that table. */
const SQL_ACCESS: Array<[RegExp, TableAccess]> = [
  [/\bINSERT\s+INTO\s+"?([a-z_][a-z0-9_]*)/gi, 'write'],
  [/\bUPDATE\s+"?([a-z_][a-z0-9_]*)/gi, 'write'],
  [/\bDELETE\s+FROM\s+"?([a-z_][a-z0-9_]*)/gi, 'write'],
  [/\bTRUNCATE\s+(?:TABLE\s+)?"?([a-z_][a-z0-9_]*)/gi, 'write'],
  [
    /\b(?:ALTER|DROP|CREATE)\s+TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"?([a-z_][a-z0-9_]*)/gi,
    'write',
  ],
  [/\bPARTITION\s+OF\s+"?([a-z_][a-z0-9_]*)/gi, 'write'],
  [/\b(?:FROM|JOIN)\s+"?([a-z_][a-z0-9_]*)/gi, 'read'],
  [/'([a-z_][a-z0-9_]*)'::regclass/gi, 'read'],
  // A `FROM` clause kept apart and put after `FROM` later: `lead r JOIN campaign c ON …`.
  [/^\s*([a-z_][a-z0-9_]*)\s+[a-z]\w*\s+JOIN\b/g, 'read'],
];

/** A literal is SQL when it holds one of these keywords in capitals (prose never does). */
const SQL_TEXT = /\b(SELECT|INSERT|UPDATE|DELETE|WITH|ALTER|TRUNCATE|JOIN|FROM)\b/;

/**
 * The tables each file under `src/` reads and writes (migrations and the database
 * infrastructure in `src/database/` left out): table names after SQL keywords in its string
 * and template literals, and the tables of entity classes handed to TypeORM calls. Only names of
 * tables an entity maps count, so aliases, CTEs and SQL functions are ignored; a `DELETE FROM`
 * is a write, not a read.
 */
export function readTableAccess(): FileTableAccess[] {
  const entityTables = readEntityTables();
  const known = new Set(entityTables.values());
  const result: FileTableAccess[] = [];
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const file = relative(ROOT, path);
    if (file.startsWith('src/database/')) continue;
    const source = parse(path);
    const access: FileTableAccess = { file, classes: [], reads: new Set(), writes: new Set() };
    const note = (table: string | undefined, kind: TableAccess) => {
      if (table && known.has(table)) (kind === 'write' ? access.writes : access.reads).add(table);
    };
    const sql = (text: string) => {
      if (!SQL_TEXT.test(text)) return;
      for (const [pattern, kind] of SQL_ACCESS) {
        for (const match of text.matchAll(pattern)) {
          // `DELETE FROM t` matched by the FROM pattern too: a write only.
          const before = text.slice(Math.max(0, match.index - 7), match.index);
          if (kind === 'read' && /DELETE\s*$/i.test(before)) continue;
          note(match[1].toLowerCase(), kind);
        }
      }
    };
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name) access.classes.push(node.name.text);
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) sql(node.text);
      if (ts.isTemplateExpression(node)) {
        sql([node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' '));
      }
      if (ts.isCallExpression(node) && node.arguments.length > 0) {
        const callee = node.expression;
        const method = ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : ts.isIdentifier(callee)
            ? callee.text
            : '';
        const first = node.arguments[0];
        if (ts.isIdentifier(first) && entityTables.has(first.text)) {
          if (TYPEORM_WRITES.has(method)) note(entityTables.get(first.text), 'write');
          else if (TYPEORM_READS.has(method)) note(entityTables.get(first.text), 'read');
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    if (access.reads.size + access.writes.size > 0) result.push(access);
  }
  return result;
}
