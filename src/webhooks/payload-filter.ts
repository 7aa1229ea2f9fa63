import { Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { InvalidInputError } from '../common/domain-error';
import { validateEvents } from './endpoint-input';
import { EVENT_EXAMPLES } from './event-examples.constants';
import { eventJsonSchema, type JsonSchema } from './event-schemas.constants';
import { isEventType, type EventType } from './event-types.constants';
import {
  FILTER_COLLECTION_SIZES,
  FILTER_DEFAULT_COLLECTION_SIZE,
  FILTER_PARSE_LIMITS,
  MAX_FILTER_COST,
  MAX_FILTER_LENGTH,
  MAX_FILTER_REGEX_LENGTH,
} from './payload-filter.constants';

// An endpoint's payload filter (docs/webhooks.md#payload-filters): a CEL expression over the
// event `{type, timestamp, data}`, parsed, type-checked and evaluated by @marcbachmann/cel-js.
// The library has no cost limit and runs `matches()` with JavaScript's backtracking RegExp, so
// this file adds what it lacks, on the parsed syntax tree, before the library checks it:
//  - only the functions and macros of FILTER_FUNCTIONS (no `cel.bind`: no value can double in
//    size again and again), identifiers starting with `__` are reserved;
//  - `matches()` takes a literal pattern, compiled by RE2JS (linear time) on save, and runs
//    through RE2JS (`__re2_matches`), never through RegExp;
//  - a static cost estimate (estimateCost) bounded by MAX_FILTER_COST;
//  - `type` names the event's type (CEL's own `type` identifier, the type of types, is shadowed:
//    the tree's `type` identifiers are renamed `__type`, the variable the event's type is bound to).

/** The functions, methods and macros a filter may call (docs/webhooks.md#the-language). */
export const FILTER_FUNCTIONS: readonly string[] = Object.freeze([
  'has',
  'size',
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'dyn',
  'timestamp',
  'duration',
  'contains',
  'startsWith',
  'endsWith',
  'matches',
  'lowerAscii',
  'upperAscii',
  'trim',
  'indexOf',
  'lastIndexOf',
  'substring',
  'split',
  'join',
  'exists',
  'all',
  'exists_one',
  'map',
  'filter',
  'getFullYear',
  'getMonth',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
]);

const ALLOWED = new Set(FILTER_FUNCTIONS);
const COMPREHENSIONS = new Set(['exists', 'all', 'exists_one', 'map', 'filter']);
const STRING_FUNCTIONS = new Set([
  'contains',
  'startsWith',
  'endsWith',
  'lowerAscii',
  'upperAscii',
  'trim',
  'indexOf',
  'lastIndexOf',
  'substring',
  'split',
  'size',
  'string',
]);
const RE2_MATCHES = '__re2_matches';
const TYPE_VARIABLE = '__type';

/** A position in a filter: 1-based line and column, 0-based offset (UTF-16 code units). */
export interface FilterPosition {
  line: number;
  column: number;
  offset: number;
}

/** Why a filter was refused: where and what, and for which event type when the check was per type. */
export class FilterProblem extends Error {
  constructor(
    readonly problem: string,
    readonly position: FilterPosition | null,
    readonly eventType: EventType | null = null,
    /** The evaluator's error code (`no_such_key`, …): safe to log, it holds no data. */
    readonly code = 'invalid_filter',
  ) {
    super(problem);
  }
}

/** The `InvalidInputError` (field `filter`) a {@link FilterProblem} is reported as: position, then problem. */
function toInputError(problem: FilterProblem): InvalidInputError {
  const where = problem.position
    ? `at line ${problem.position.line}, column ${problem.position.column}`
    : 'as a whole';
  const forType = problem.eventType ? ` (for ${problem.eventType} events)` : '';
  return InvalidInputError.field('filter', `has an error ${where}${forType}: ${problem.problem}`);
}

function positionOf(input: string, offset: number): FilterPosition {
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < input.length; i++) {
    if (input[i] === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { line, column, offset };
}

// --- The syntax tree of @marcbachmann/cel-js 8 (`parse(…).ast`): `{op, args, start, end}`. ---

interface AstNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
  pos?: number;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

function children(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (value: unknown): void => {
    if (isNode(value)) out.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
  };
  visit(node.args);
  return out;
}

/** The call's name, receiver and arguments (`call`: `[name, args]`, `rcall`: `[name, receiver, args]`). */
function callParts(node: AstNode): { name: string; receiver: AstNode | null; args: AstNode[] } {
  const parts = node.args as unknown[];
  if (node.op === 'call')
    return { name: parts[0] as string, receiver: null, args: parts[1] as AstNode[] };
  return { name: parts[0] as string, receiver: parts[1] as AstNode, args: parts[2] as AstNode[] };
}

function problemAt(input: string, node: AstNode, problem: string): FilterProblem {
  return new FilterProblem(problem, positionOf(input, node.pos ?? node.start));
}

/**
 * Checks the tree against the allowed functions, reserves `__` identifiers, checks and compiles
 * each `matches()` pattern with RE2JS, then rewrites `type` and `matches` (see the top of this
 * file). Mutates `root`. @throws FilterProblem.
 */
function vetAndRewrite(input: string, root: AstNode): void {
  const visit = (node: AstNode): void => {
    if (node.op === 'id') {
      const name = node.args as string;
      if (name.startsWith('__'))
        throw problemAt(input, node, `identifiers starting with "__" are reserved: ${name}`);
      if (name === 'type') node.args = TYPE_VARIABLE;
      return;
    }
    if (node.op === 'call' || node.op === 'rcall') {
      const { name, receiver, args } = callParts(node);
      if (!ALLOWED.has(name)) {
        const shown = receiver?.op === 'id' ? `${receiver.args as string}.${name}` : name;
        throw problemAt(input, node, `function ${shown}() is not available in filters`);
      }
      if (name === 'matches') {
        const pattern = node.op === 'call' ? args[1] : args[0];
        if (!pattern || pattern.op !== 'value' || typeof pattern.args !== 'string')
          throw problemAt(input, node, 'matches() takes a string literal as its pattern');
        compileRegex(input, pattern);
        (node.args as unknown[])[0] = RE2_MATCHES;
      }
      if (node.op === 'call' && name === 'matches') {
        // matches(s, re) → s.__re2_matches(re)
        node.op = 'rcall';
        node.args = [RE2_MATCHES, args[0], [args[1]]];
      }
    }
    for (const child of children(node)) visit(child);
  };
  visit(root);
}

const regexes = new Map<string, RE2JS>();

function regex(pattern: string): RE2JS {
  let compiled = regexes.get(pattern);
  if (!compiled) {
    compiled = RE2JS.compile(pattern);
    // Patterns come from saved filters (checked, at most MAX_FILTER_REGEX_LENGTH each): bounded.
    if (regexes.size >= 10_000) regexes.clear();
    regexes.set(pattern, compiled);
  }
  return compiled;
}

function compileRegex(input: string, node: AstNode): void {
  const pattern = node.args as string;
  if (pattern.length > MAX_FILTER_REGEX_LENGTH)
    throw problemAt(
      input,
      node,
      `a pattern may have at most ${MAX_FILTER_REGEX_LENGTH} characters`,
    );
  try {
    regex(pattern);
  } catch (error) {
    throw problemAt(
      input,
      node,
      `invalid regular expression (RE2 syntax): ${(error as Error).message}`,
    );
  }
}

/** Items a comprehension or `in` is assumed to go through for the collection `node`. */
function collectionSize(node: AstNode): number {
  if (node.op === 'list' || node.op === 'map') return Math.max(1, children(node).length);
  if (node.op === '.') {
    const [target, field] = node.args as [AstNode, string];
    if (target.op === 'id' && target.args === 'data' && field in FILTER_COLLECTION_SIZES)
      return FILTER_COLLECTION_SIZES[field];
  }
  return FILTER_DEFAULT_COLLECTION_SIZE;
}

/**
 * The static cost of evaluating `node` once, in units (docs/webhooks.md#costs-and-limits): one
 * per node, a comprehension's body once per assumed item of its collection (nested ones
 * multiply), `in` over a collection one per item, `join` one per item, a string function 5, a
 * regular expression 50 plus 2 per pattern character. Pure.
 */
export function estimateCost(node: AstNode): number {
  if (node.op === 'rcall' || node.op === 'call') {
    const { name, receiver, args } = callParts(node);
    const receiverCost = receiver ? estimateCost(receiver) : 0;
    if (node.op === 'rcall' && COMPREHENSIONS.has(name) && receiver) {
      const body = args.slice(1).reduce((sum, a) => sum + estimateCost(a), 0);
      return 1 + receiverCost + collectionSize(receiver) * (body + 1);
    }
    let cost = 1 + receiverCost + args.reduce((sum, a) => sum + estimateCost(a), 0);
    if (name === RE2_MATCHES) cost += 50 + 2 * String((args[0]?.args as string) ?? '').length;
    else if (name === 'join' && receiver) cost += collectionSize(receiver);
    else if (STRING_FUNCTIONS.has(name)) cost += 5;
    return cost;
  }
  const inner = children(node).reduce((sum, c) => sum + estimateCost(c), 0);
  if (node.op === 'in') {
    const [, collection] = node.args as [AstNode, AstNode];
    return 1 + inner + collectionSize(collection);
  }
  return 1 + inner;
}

// --- Environments: one per event type for the check on save, one for evaluation. ---

type CelType = string | { [field: string]: CelType };

/**
 * The CEL type of a JSON Schema (of `eventJsonSchema`): `string` (enums, formats and
 * constants too), `int` for `integer`, `double` for `number`, `bool`, `list<…>`, a nested
 * object's fields, `map<string, dyn>` for a record; a value that may be null, or of several
 * types, is `dyn` (checked when evaluated).
 */
function celTypeOf(schema: JsonSchema): CelType {
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf) || Array.isArray(schema.type))
    return 'dyn';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'array': {
      const items = schema.items as JsonSchema | undefined;
      const inner = items ? celTypeOf(items) : 'dyn';
      return `list<${typeof inner === 'string' ? inner : 'dyn'}>`;
    }
    case 'object': {
      const properties = schema.properties as Record<string, JsonSchema> | undefined;
      if (!properties) return 'map<string, dyn>';
      return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, celTypeOf(v)]));
    }
    default:
      return typeof schema.const === 'string' || Array.isArray(schema.enum) ? 'string' : 'dyn';
  }
}

function baseEnvironment(): Environment {
  return new Environment({ limits: { ...FILTER_PARSE_LIMITS } })
    .registerVariable(TYPE_VARIABLE, 'string')
    .registerVariable('timestamp', 'string')
    .registerFunction(`string.${RE2_MATCHES}(string): bool`, (text: string, pattern: string) =>
      regex(pattern).matcher(text).find(),
    );
}

const checkEnvironments = new Map<EventType, Environment>();

/** The environment `data` is typed in by `type`'s JSON Schema (built once per type). */
function checkEnvironment(type: EventType): Environment {
  let env = checkEnvironments.get(type);
  if (!env) {
    const body = eventJsonSchema(type);
    const data = (body.properties as Record<string, JsonSchema>).data;
    const dataType = celTypeOf(data);
    env = baseEnvironment();
    if (typeof dataType === 'string') env.registerVariable('data', dataType);
    else env.registerVariable({ name: 'data', schema: dataType });
    checkEnvironments.set(type, env);
  }
  return env;
}

let runtimeEnvironment: Environment | null = null;

/** The environment filters run in: `data` is a `map<string, dyn>` (the event's JSON as parsed). */
function runEnvironment(): Environment {
  runtimeEnvironment ??= baseEnvironment().registerVariable('data', 'map<string, dyn>');
  return runtimeEnvironment;
}

interface CelError {
  code?: string;
  summary?: string;
  message: string;
  range?: { start: number; end: number };
}

function fromCelError(input: string, error: unknown, eventType: EventType | null): FilterProblem {
  if (error instanceof FilterProblem) return error;
  const e = error as CelError;
  const problem = (e.summary ?? e.message.split('\n')[0])
    .replaceAll(TYPE_VARIABLE, 'type')
    .replaceAll(RE2_MATCHES, 'matches');
  return new FilterProblem(
    problem,
    e.range ? positionOf(input, e.range.start) : null,
    eventType,
    e.code ?? 'evaluation_error',
  );
}

type Evaluate = ((context: Record<string, unknown>) => unknown) & {
  ast: AstNode;
  check: () => { valid: boolean; type?: string; error?: unknown };
};

/** Parses with `env` and vets the tree; checks length, limits and cost. @throws FilterProblem. */
function parseIn(env: Environment, expression: string, eventType: EventType | null): Evaluate {
  if (expression.length > MAX_FILTER_LENGTH)
    throw new FilterProblem(`must be at most ${MAX_FILTER_LENGTH} characters`, null);
  let parsed: Evaluate;
  try {
    parsed = env.parse(expression) as unknown as Evaluate;
  } catch (error) {
    throw fromCelError(expression, error, null);
  }
  vetAndRewrite(expression, parsed.ast);
  const cost = estimateCost(parsed.ast);
  if (cost > MAX_FILTER_COST)
    throw new FilterProblem(
      `costs ${cost.toLocaleString('en')} units by the static estimate, more than the limit of ${MAX_FILTER_COST.toLocaleString('en')} (see docs/webhooks.md#costs-and-limits)`,
      positionOf(expression, 0),
      eventType,
    );
  return parsed;
}

/**
 * Checks a filter on save (docs/webhooks.md#the-check-on-save) and returns it as stored: trimmed,
 * null when blank (no filter: every event of the subscribed types). The expression must parse
 * within the limits, call only {@link FILTER_FUNCTIONS}, cost at most {@link MAX_FILTER_COST},
 * and type-check to a `bool` against the JSON Schema of at least one of `subscribedTypes`
 * (an endpoint subscribed to several types may name fields of one type only: on another
 * type's event such a field is missing, an evaluation error, so no match). When it checks for
 * no type, the error reported is the first subscribed type's.
 * @throws InvalidInputError (field `filter`), its message naming the line and column and the problem.
 */
export function validateFilter(
  filter: string | null | undefined,
  subscribedTypes: readonly string[],
): string | null {
  if (filter === null || filter === undefined || filter.trim() === '') return null;
  const expression = filter.trim();
  try {
    checkExpression(expression, subscribedTypes);
  } catch (error) {
    throw toInputError(error as FilterProblem);
  }
  return expression;
}

function checkExpression(expression: string, subscribedTypes: readonly string[]): void {
  const types = subscribedTypes.filter(isEventType);
  let first: FilterProblem | null = null;
  for (const type of types) {
    const parsed = parseIn(checkEnvironment(type), expression, type);
    const result = parsed.check();
    if (result.valid && (result.type === 'bool' || result.type === 'dyn')) return;
    const problem = result.valid
      ? new FilterProblem(
          `must be a bool expression, not ${result.type}`,
          positionOf(expression, 0),
          type,
        )
      : fromCelError(expression, result.error, type);
    first ??= problem;
  }
  if (first) throw first;
  // No known type (cannot happen for a saved endpoint): the parse and the limits were checked.
  parseIn(runEnvironment(), expression, null);
}

/** The outcome of one evaluation: matched, or not, or why it could not be evaluated. */
export type FilterOutcome =
  | { match: boolean; error: null; code: null }
  | {
      match: false;
      /** What went wrong; may quote the expression, never the event's data. */
      error: string;
      /** The evaluator's error code, safe to log. */
      code: string;
    };

/**
 * A saved filter, compiled for evaluation: call {@link CompiledFilter.evaluate} per event.
 * Compiled once per expression text and kept (see {@link compileFilter}).
 */
export class CompiledFilter {
  private readonly context: { __type: string; timestamp: string; data: unknown } = {
    __type: '',
    timestamp: '',
    data: null,
  };

  /** @internal use {@link compileFilter}. */
  constructor(
    readonly expression: string,
    private readonly run: Evaluate,
  ) {}

  /**
   * Evaluates the filter on one event (docs/webhooks.md#when-a-filter-fails): a result other
   * than `true` (false, or not a bool) is no match; an evaluation error (a missing field, a
   * value of another type) is no match with the error's summary (never the event's data).
   * Never throws. Synchronous; reuses one context object, so not re-entrant.
   */
  evaluate(type: string, timestamp: string, data: unknown): FilterOutcome {
    const context = this.context;
    context.__type = type;
    context.timestamp = timestamp;
    context.data = data;
    try {
      const result = this.run(context);
      if (result === true) return MATCH;
      if (result === false) return NO_MATCH;
      return { match: false, error: 'the filter gave no bool', code: 'not_a_bool' };
    } catch (error) {
      const problem = fromCelError(this.expression, error, null);
      return { match: false, error: problem.problem, code: problem.code };
    } finally {
      context.data = null;
    }
  }
}

const MATCH: FilterOutcome = Object.freeze({ match: true, error: null, code: null });
const NO_MATCH: FilterOutcome = Object.freeze({ match: false, error: null, code: null });

const compiled = new Map<string, CompiledFilter>();
const MAX_COMPILED = 5000;

/**
 * The compiled form of a saved filter, from a process-wide cache by expression text (an
 * endpoint's filter changes only by saving a new text, so a text never goes stale). A filter
 * that no longer compiles (saved by an older version with other limits) compiles to one that
 * errors on every event: no match.
 */
export function compileFilter(expression: string): CompiledFilter {
  let filter = compiled.get(expression);
  if (filter) return filter;
  let run: Evaluate;
  try {
    run = parseIn(runEnvironment(), expression, null);
    const checked = run.check();
    if (!checked.valid) throw fromCelError(expression, checked.error, null);
  } catch (error) {
    const problem = error instanceof FilterProblem ? error.problem : String(error);
    run = Object.assign(
      () => {
        throw new FilterProblem(
          `the filter no longer compiles: ${problem}`,
          null,
          null,
          'stale_filter',
        );
      },
      { ast: { op: 'value', args: false, start: 0, end: 0 }, check: () => ({ valid: false }) },
    ) as Evaluate;
  }
  filter = new CompiledFilter(expression, run);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(expression, filter);
  return filter;
}

/** A recorded event a filter preview evaluates: its id, type, exact body and time. */
export interface RecordedEventBody {
  id: string;
  type: string;
  /** `{"type", "timestamp", "data"}` as sent. */
  body: string;
  createdAt: Date;
}

/** One row of a filter preview (docs/dashboard.md#payload-filter-preview). */
export interface FilterPreviewItem {
  /** `example`: the type's example event; `event`: a recorded event of the campaign. */
  source: 'example' | 'event';
  type: string;
  /** The recorded event's id (its `webhook-id`); null for an example. */
  event_id: string | null;
  /** When the event was recorded (ISO 8601); null for an example. */
  recorded_at: string | null;
  result: 'match' | 'no_match' | 'error';
  /** Why the evaluation failed (`result: error`, which counts as no match); else null. */
  error: string | null;
}

/**
 * What a filter would do, without sending anything (the dashboard's "Try it",
 * docs/dashboard.md#payload-filter-preview): checks it as on save against `subscribedTypes`,
 * then evaluates it on each type's example event (`EVENT_EXAMPLES`, timestamped now) and on
 * `recent`, in that order. A blank filter matches every event.
 * @throws InvalidInputError (field `events`) for no or unknown types; (field `filter`) as
 *   {@link validateFilter}.
 */
export function previewFilter(
  filter: string,
  subscribedTypes: readonly string[],
  recent: readonly RecordedEventBody[],
  now = new Date(),
): FilterPreviewItem[] {
  const types = validateEvents([...subscribedTypes]) as EventType[];
  const expression = validateFilter(filter, types);
  const compiledFilter = expression === null ? null : compileFilter(expression);
  const outcome = (type: string, timestamp: string, data: unknown): FilterOutcome =>
    compiledFilter === null ? MATCH : compiledFilter.evaluate(type, timestamp, data);
  const item = (
    source: FilterPreviewItem['source'],
    type: string,
    event: RecordedEventBody | null,
    result: FilterOutcome,
  ): FilterPreviewItem => ({
    source,
    type,
    event_id: event?.id ?? null,
    recorded_at: event?.createdAt.toISOString() ?? null,
    result: result.error !== null ? 'error' : result.match ? 'match' : 'no_match',
    error: result.error,
  });
  const timestamp = now.toISOString();
  const items = types.map((type) =>
    item('example', type, null, outcome(type, timestamp, EVENT_EXAMPLES[type])),
  );
  for (const event of recent) {
    let parsed: { timestamp?: unknown; data?: unknown };
    try {
      parsed = JSON.parse(event.body) as typeof parsed;
    } catch {
      parsed = {};
    }
    const ts = typeof parsed.timestamp === 'string' ? parsed.timestamp : timestamp;
    items.push(item('event', event.type, event, outcome(event.type, ts, parsed.data ?? null)));
  }
  return items;
}
