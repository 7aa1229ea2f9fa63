import {
  TRANSFORMATION_MAX_HEADERS,
  TRANSFORMATION_MAX_HEADER_NAME_LENGTH,
  TRANSFORMATION_MAX_HEADER_VALUE_LENGTH,
  TRANSFORMATION_MAX_OUTPUT_BYTES,
  TRANSFORMATION_MAX_URL_LENGTH,
} from './transformation.constants';

/** The file name the prelude is evaluated under: its frames never count as the customer's. */
export const PRELUDE_FILE_NAME = 'sandbox.js';

/**
 * The script every transformation runtime evaluates before the customer's code
 * (docs/security.md#transformation-sandbox). It is JavaScript for QuickJS, kept here as text: the
 * host never evaluates it. It runs as a script of its own, so the customer's code keeps its own
 * line numbers. It:
 *
 * 1. takes away what is not deterministic: `Math.random`, `Date.now`, `Date()` and `new Date()`
 *    without a value throw ("Math.random is not available in a transformation"; `new Date(value)`
 *    still works), and `Atomics`, `SharedArrayBuffer`, `WeakRef` and `FinalizationRegistry` are
 *    deleted; `console` is a set of functions that do nothing (no host function is exposed);
 * 2. freezes every intrinsic reachable from `globalThis` (constructors, their prototypes, their
 *    methods, and the prototypes with no global name: generators', iterators', `%TypedArray%`),
 *    like SES's lockdown, so no call can change what the next call sees;
 * 3. completes with an object of four functions, which the host keeps (no global name reaches
 *    them, and they hold the intrinsics they use from before the customer's code ran):
 *    - `take()`: reads `globalThis.handler`, then freezes `globalThis` (its own properties: the
 *      customer's `var`s and functions become read-only), and returns the handler;
 *    - `call(handler, metaJson, payloadJson)`: builds `webhook = { method, url, headers, payload,
 *      event_type }` from the two JSON texts and returns `handler(webhook)`;
 *    - `serialise(result)`: reads each field of the result once and returns one JSON text for the
 *      host to check (`transformation-result.ts`); the payload is serialised here, under the
 *      call's budget, with a replacer that stops as soon as the text must pass 256 KiB;
 *    - `describe(thrown)`: JSON `{name, message, stack}` of a thrown object, or `{value}` of
 *      anything else.
 */
export const SANDBOX_PRELUDE = `'use strict';
(() => {
  const G = globalThis;
  const { freeze, getPrototypeOf, getOwnPropertyDescriptor, getOwnPropertyNames, getOwnPropertySymbols, defineProperty, hasOwn, keys } = Object;
  const { apply, construct } = Reflect;
  const ObjectPrototype = Object.prototype;
  const isArray = Array.isArray;
  const { parse, stringify } = JSON;
  const StringOf = String;
  const TypeErrorOf = TypeError;
  const push = Array.prototype.push;
  const slice = String.prototype.slice;

  const hidden = (value) => ({ value, writable: true, enumerable: false, configurable: true });
  const unavailable = (what) =>
    function () {
      throw new TypeErrorOf(what + ' is not available in a transformation');
    };

  // 1. Determinism.
  defineProperty(Math, 'random', hidden(unavailable('Math.random')));
  const OriginalDate = G.Date;
  const DatePrototype = OriginalDate.prototype;
  const SafeDate = function Date(...values) {
    if (new.target === undefined) throw new TypeErrorOf('Date() is not available in a transformation');
    if (values.length === 0) {
      throw new TypeErrorOf('new Date() without a value is not available in a transformation');
    }
    return construct(OriginalDate, values, new.target);
  };
  defineProperty(SafeDate, 'length', { value: 7, configurable: true });
  defineProperty(SafeDate, 'prototype', { value: DatePrototype, writable: false });
  defineProperty(SafeDate, 'now', hidden(unavailable('Date.now')));
  defineProperty(SafeDate, 'parse', hidden(OriginalDate.parse));
  defineProperty(SafeDate, 'UTC', hidden(OriginalDate.UTC));
  defineProperty(OriginalDate, 'now', hidden(SafeDate.now));
  defineProperty(DatePrototype, 'constructor', hidden(SafeDate));
  defineProperty(G, 'Date', hidden(SafeDate));
  for (const name of ['Atomics', 'SharedArrayBuffer', 'WeakRef', 'FinalizationRegistry']) delete G[name];
  const quiet = () => undefined;
  defineProperty(G, 'console', hidden({ log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet }));

  // 2. Freeze the intrinsics: everything reachable from globalThis's properties, and the
  // prototypes no global names. (The customer's code has not run yet: the intrinsics can be used
  // as they are.) A built-in method, a function with only its length and name, holds nothing to
  // visit: it is frozen without reading its properties, which halves the walk's time.
  const seen = new Set([G]);
  const todo = [];
  const visit = (value) => {
    if (((typeof value === 'object' && value !== null) || typeof value === 'function') && !seen.has(value)) {
      seen.add(value);
      todo.push(value);
    }
  };
  const visitProperties = (object) => {
    const names = getOwnPropertyNames(object);
    for (let i = 0; i < names.length; i++) {
      const descriptor = getOwnPropertyDescriptor(object, names[i]);
      if (descriptor.get === undefined && descriptor.set === undefined) visit(descriptor.value);
      else {
        visit(descriptor.get);
        visit(descriptor.set);
      }
    }
    const symbols = getOwnPropertySymbols(object);
    for (let i = 0; i < symbols.length; i++) {
      const descriptor = getOwnPropertyDescriptor(object, symbols[i]);
      visit(descriptor.value);
      visit(descriptor.get);
      visit(descriptor.set);
    }
  };
  const isPlainMethod = (object) => {
    if (typeof object !== 'function' || hasOwn(object, 'prototype')) return false;
    const names = getOwnPropertyNames(object);
    return (
      names.length === 2 &&
      ((names[0] === 'length' && names[1] === 'name') || (names[0] === 'name' && names[1] === 'length')) &&
      getOwnPropertySymbols(object).length === 0
    );
  };
  visitProperties(G);
  const unnamed = [
    () => getPrototypeOf(function* () {}),
    () => getPrototypeOf(async function () {}),
    () => getPrototypeOf(async function* () {}),
    () => getPrototypeOf([][Symbol.iterator]()),
    () => getPrototypeOf(new Map()[Symbol.iterator]()),
    () => getPrototypeOf(new Set()[Symbol.iterator]()),
    () => getPrototypeOf(''[Symbol.iterator]()),
    () => getPrototypeOf('a'.matchAll(/a/g)),
    () => getPrototypeOf([].values().map((x) => x)),
    () => getPrototypeOf(Iterator.from({ next: () => ({ done: true }) })),
    () => getPrototypeOf(Int8Array),
  ];
  for (const find of unnamed) {
    try {
      visit(find());
    } catch {
      // An engine without that intrinsic.
    }
  }
  while (todo.length > 0) {
    const object = todo.pop();
    visit(getPrototypeOf(object));
    if (!isPlainMethod(object)) visitProperties(object);
    freeze(object);
  }

  // 3. What the host calls.
  const take = () => {
    const handler = G.handler;
    freeze(G);
    return handler;
  };

  const call = (handler, metaJson, payloadJson) => {
    const meta = parse(metaJson);
    const webhook = {
      method: meta.method,
      url: meta.url,
      headers: meta.headers,
      payload: parse(payloadJson),
      event_type: meta.event_type,
    };
    return apply(handler, undefined, [webhook]);
  };

  const MAX_BODY = ${TRANSFORMATION_MAX_OUTPUT_BYTES};
  const TOO_LARGE = freeze({});
  const kindOf = (value) => (value === null ? 'null' : isArray(value) ? 'array' : typeof value);
  // A string longer than the limit is cut one past it: enough for the host to say it is too long.
  const capped = (text, most) => (text.length > most ? apply(slice, text, [0, most + 1]) : text);
  const field = (value, most) => (typeof value === 'string' ? [capped(value, most)] : [null, kindOf(value)]);

  // The least number of characters JSON.stringify writes for value (at key, in holder), counted
  // before it does: a replacer that stops once the body must pass MAX_BODY, so a huge or sparse
  // payload costs no more than a body of the limit.
  const payloadText = (payload) => {
    let budget = MAX_BODY;
    let root = true;
    const replacer = function (key, value) {
      const inArray = isArray(this);
      const type = typeof value;
      let least;
      if (type === 'string') least = value.length + 2;
      else if (isArray(value)) least = value.length + 2;
      else if (type === 'object') least = value === null ? 4 : 2;
      else if (type === 'undefined' || type === 'function' || type === 'symbol') least = inArray ? 4 : 0;
      else least = 1;
      if (inArray) least -= 1; // the element's one character was counted with its array
      else if (!root && least > 0) least += key.length + 3;
      root = false;
      budget -= least;
      if (budget < 0) throw TOO_LARGE;
      return value;
    };
    try {
      const text = stringify(payload, replacer);
      if (text === undefined) return { kind: 'undefined' };
      return text.length > MAX_BODY ? { kind: 'json', atLeast: text.length } : { kind: 'json', text };
    } catch (error) {
      if (error === TOO_LARGE) return { kind: 'json', atLeast: MAX_BODY - budget };
      throw error;
    }
  };

  const serialise = (result) => {
    if (result === null) return '{"cancelled":true}';
    if (typeof result !== 'object' || isArray(result)) return stringify({ result: kindOf(result) });
    const prototype = getPrototypeOf(result);
    if (prototype !== ObjectPrototype && prototype !== null) return stringify({ result: 'instance' });
    const method = result.method;
    const url = result.url;
    const headers = result.headers;
    const payload = result.payload;
    const out = {
      method: field(method, 16),
      url: field(url, ${TRANSFORMATION_MAX_URL_LENGTH}),
      headers: null,
      payload: null,
    };
    if (typeof headers === 'object' && headers !== null && !isArray(headers)) {
      const names = keys(headers);
      if (names.length > ${TRANSFORMATION_MAX_HEADERS}) {
        out.headers = { count: names.length };
      } else {
        const entries = [];
        for (const name of names) {
          apply(push, entries, [
            [capped(name, ${TRANSFORMATION_MAX_HEADER_NAME_LENGTH}), field(headers[name], ${TRANSFORMATION_MAX_HEADER_VALUE_LENGTH})],
          ]);
        }
        out.headers = { entries };
      }
    } else {
      out.headers = { kind: kindOf(headers) };
    }
    const type = typeof payload;
    if (type === 'string') {
      out.payload = payload.length > MAX_BODY ? { kind: 'string', atLeast: payload.length } : { kind: 'string', text: payload };
    } else if (type === 'undefined' || type === 'function' || type === 'symbol') {
      out.payload = { kind: type };
    } else {
      out.payload = payloadText(payload);
    }
    return stringify(out);
  };

  const describe = (thrown) => {
    if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') {
      let name = '';
      let message = '';
      let stack = '';
      try {
        name = StringOf(thrown.name);
      } catch {}
      try {
        message = StringOf(thrown.message);
      } catch {}
      try {
        const value = thrown.stack;
        if (typeof value === 'string') stack = value;
      } catch {}
      return stringify({ name, message, stack });
    }
    let value;
    try {
      value = typeof thrown === 'string' ? thrown : StringOf(thrown);
    } catch {
      value = typeof thrown;
    }
    return stringify({ value });
  };

  return freeze({ take, call, serialise, describe });
})();
`;
