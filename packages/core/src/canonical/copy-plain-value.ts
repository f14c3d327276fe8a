import { FORBIDDEN_KEYS } from './forbidden-keys.ts';
import { sortedKeys } from './sorted-keys.ts';

/** The walk met something the full walk must judge (and describe): it gives up. */
const GIVE_UP: unique symbol = Symbol('give up');

// Recursion is only used where the depth limit keeps the stack small.
const MAX_RECURSIVE_DEPTH = 256;

interface Walk {
  readonly maxDepth: number;
  readonly maxBytes: number;
  /** The same lower bound of the canonical size that validateJsonValue accumulates. */
  bytes: number;
  /** Keys inserted sorted so far, none digit-led (see CheckedCopy.keysInJcsOrder). */
  jcs: boolean;
}

/**
 * The common case of `copyJsonValue`, as one recursive copy without its bookkeeping
 * (work list, ancestor set, paths): about half its cost for ordinary arguments. Applies
 * exactly the same checks and the same size bound, and gives up (undefined) at the first
 * value any of them refuses, or if reading the value throws; the full walk then decides and
 * names the problem. So for a value that reads the same each time it accepts exactly what
 * the full walk accepts. A getter or Proxy whose reads differ (one that throws only the
 * first time) is read again by the full walk, which decides on what it reads; either way
 * the value returned is a plain copy, and that copy is what is hashed and run. A cycle needs
 * no check of its own: it exceeds the depth limit, and the full walk reports it as a cycle.
 */
export function copyPlainValue(value: unknown, maxDepth: number, maxBytes: number, sortKeys: boolean): { value: unknown; keysInJcsOrder: boolean } | undefined {
  if (maxDepth > MAX_RECURSIVE_DEPTH) return undefined;
  const walk: Walk = { maxDepth, maxBytes, bytes: 0, jcs: sortKeys };
  try {
    const copy = copyOf(value, 0, walk);
    return copy === GIVE_UP ? undefined : { value: copy, keysInJcsOrder: walk.jcs };
  } catch {
    // A getter or Proxy trap threw (or the stack ran out): the full walk reports it.
    return undefined;
  }
}

/** `depth`: of the container holding `v` (0 for the root), as in validateJsonValue. */
function copyOf(v: unknown, depth: number, walk: Walk): unknown {
  let copy: unknown = v;
  switch (typeof v) {
    case 'string':
      if (!v.isWellFormed()) return GIVE_UP;
      walk.bytes += v.length + 2;
      break;
    case 'number':
      if (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v))) return GIVE_UP;
      if (v === 0) copy = 0; // -0 → 0, as JCS writes it
      walk.bytes += 1;
      break;
    case 'boolean':
      walk.bytes += v ? 4 : 5;
      break;
    case 'object':
      if (v === null) {
        walk.bytes += 4;
        break;
      }
      if (depth + 1 > walk.maxDepth) return GIVE_UP;
      copy = Array.isArray(v) ? copyArray(v, depth + 1, walk) : copyObject(v, depth + 1, walk);
      break;
    default:
      // undefined, functions, symbols, BigInt.
      return GIVE_UP;
  }
  return walk.bytes > walk.maxBytes ? GIVE_UP : copy;
}

function copyArray(v: unknown[], depth: number, walk: Walk): unknown {
  const length = v.length;
  if (walk.bytes + 1 + length > walk.maxBytes) return GIVE_UP;
  for (let i = 0; i < length; i++) if (!Object.hasOwn(v, i)) return GIVE_UP;
  // Own keys of a dense array are its indices plus `length`; anything else JSON ignores.
  if (Reflect.ownKeys(v).length !== length + 1) return GIVE_UP;
  walk.bytes += 2 + Math.max(0, length - 1);
  if (walk.bytes > walk.maxBytes) return GIVE_UP;
  const array: unknown[] = [];
  for (let i = 0; i < length; i++) {
    const item = copyOf(v[i], depth, walk);
    if (item === GIVE_UP) return GIVE_UP;
    array.push(item);
  }
  return array;
}

function copyObject(v: object, depth: number, walk: Walk): unknown {
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return GIVE_UP;
  const keys = Object.keys(v);
  if (Reflect.ownKeys(v).length !== keys.length) return GIVE_UP;
  let digitLed = false;
  for (const key of keys) {
    if (!key.isWellFormed() || FORBIDDEN_KEYS.has(key)) return GIVE_UP;
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) digitLed = true;
    walk.bytes += key.length + 4;
  }
  walk.bytes += keys.length === 0 ? 2 : 1;
  if (walk.bytes > walk.maxBytes) return GIVE_UP;
  const object: Record<string, unknown> = {};
  if (walk.jcs && keys.length > 0) {
    if (digitLed) walk.jcs = false;
    // Sorted placeholders first, so the copy's key order is JCS's (see insertSortedKeys).
    else for (const key of keys.length === 1 ? keys : sortedKeys(keys)) object[key] = undefined;
  }
  const source = v as Record<string, unknown>;
  for (const key of keys) {
    const item = copyOf(source[key], depth, walk);
    if (item === GIVE_UP) return GIVE_UP;
    object[key] = item;
  }
  return object;
}
