import { describePath, quoteForMessage } from './describe.ts';
import { CanonicalizationError, type CanonicalErrorCode } from './errors.ts';
import { copyPlainValue } from './copy-plain-value.ts';
import { FORBIDDEN_KEYS } from './forbidden-keys.ts';
import { toJsonPointer } from './json-pointer.ts';
import { sortedKeys } from './sorted-keys.ts';
import { type CanonicalLimits, resolveLimits } from './limits.ts';

type Container = Record<string, unknown> | unknown[];

/** A value waiting to be checked, and where its copy goes. */
interface Pending {
  value: unknown;
  /** The copy of the parent container (a one-slot box for the root). */
  into: Container;
  key: string | number;
  /** Depth of the container holding `value` (0 for the root). */
  depth: number;
  /** The pending entry of the parent container, for building paths on error. */
  parent: Pending | undefined;
}

/** Marks the end of a container's subtree: it is no longer an ancestor. */
interface Leave {
  leave: object;
}

/**
 * Checks an already-parsed value (what AI SDK and others hand over) against the
 * same rules as strict text intake, and returns a detached plain-data copy of it.
 * Callers must canonicalize and run the copy, not the original: the copy reads
 * every property exactly once, so a getter, a Proxy or a later mutation of the
 * caller's object cannot make the bound bytes and the executed value differ.
 *
 * Accepted: `null`, booleans, well-formed strings, finite numbers that are not
 * integers beyond ±(2^53−1) (`-0` is copied as `0`), arrays without holes or extra
 * properties, and objects whose prototype is `Object.prototype` or `null` with only
 * own enumerable string keys. Everything else throws `CanonicalizationError`:
 * `non_finite`, `unsafe_integer`, `lone_surrogate`, `forbidden_key`, `cycle`,
 * `too_deep`, `too_large`, or `unsupported_type` for `undefined` (anywhere: JSON
 * would drop the property, so the approver would not see what the tool gets),
 * functions, symbols, BigInt, Date, Map, class instances, boxed primitives, sparse
 * arrays and non-enumerable or symbol-keyed properties. Shared (non-cyclic)
 * references are allowed and copied twice, as JSON would write them.
 *
 * `too_large` here uses a lower bound of the canonical size, accumulated while
 * walking, so a huge or exponentially shared value stops early;
 * `canonicalizeArguments` checks the exact size of the output.
 */
export function validateJsonValue(value: unknown, limits?: Partial<CanonicalLimits>): unknown {
  return copyJsonValue(value, limits, false).value;
}

/** A checked copy, and whether `JSON.stringify` of it is already its JCS text. */
export interface CheckedCopy {
  value: unknown;
  /**
   * True when every object of the copy had its keys inserted in UTF-16 code-unit order
   * and none of them starts with a digit. Then `JSON.stringify(value)` writes exactly
   * the JCS text: JCS strings and numbers are ECMAScript JSON.stringify's, and an
   * object's keys come out in insertion order — except array-index keys ("9", "10"),
   * which every engine writes first in numeric order, so any digit-led key rules it out.
   */
  keysInJcsOrder: boolean;
}

/**
 * `validateJsonValue` with the same checks, errors and error order; with `sortKeys`,
 * each object of the copy gets its keys in JCS order, so canonicalization can use the
 * engine's native serializer (`keysInJcsOrder`). Internal to the canonical module.
 */
export function copyJsonValue(value: unknown, limits: Partial<CanonicalLimits> | undefined, sortKeys: boolean): CheckedCopy {
  const { maxDepth, maxBytes } = resolveLimits(limits);
  // Ordinary data: one recursive copy. It gives up on anything the walk would refuse.
  return copyPlainValue(value, maxDepth, maxBytes, sortKeys) ?? walkJsonValue(value, maxDepth, maxBytes, sortKeys);
}

/** The full walk of `copyJsonValue`: every check, with the path and reason of the first refusal. Exported for tests. */
export function walkJsonValue(value: unknown, maxDepth: number, maxBytes: number, sortKeys: boolean): CheckedCopy {
  let keysInJcsOrder = sortKeys;
  const root: unknown[] = [undefined];
  const work: Array<Pending | Leave> = [{ value, into: root, key: 0, depth: 0, parent: undefined }];
  const ancestors = new Set<object>();
  let minBytes = 0;
  let current: Pending | undefined;

  const fail = (code: CanonicalErrorCode, what: string, at: Pending | undefined, options?: ErrorOptions): never => {
    const path = pathOf(at);
    throw new CanonicalizationError(code, `${what} at ${describePath(path)}`, path, options);
  };

  try {
    for (let item = work.pop(); item !== undefined; item = work.pop()) {
      if ('leave' in item) {
        ancestors.delete(item.leave);
        continue;
      }
      current = item;
      const v = item.value;
      let copy: unknown = v;
      switch (typeof v) {
        case 'string':
          if (!v.isWellFormed()) fail('lone_surrogate', 'string with a lone surrogate', item);
          minBytes += v.length + 2;
          break;
        case 'number':
          if (!Number.isFinite(v)) fail('non_finite', `${String(v)} is not a JSON number`, item);
          if (Number.isInteger(v) && !Number.isSafeInteger(v)) {
            fail('unsafe_integer', `integer outside ±(2^53−1): ${String(v)}`, item);
          }
          if (v === 0) copy = 0; // -0 is written "0" by JCS; hand the tool the same
          minBytes += 1;
          break;
        case 'boolean':
          minBytes += v ? 4 : 5;
          break;
        case 'object': {
          if (v === null) {
            minBytes += 4;
            break;
          }
          if (ancestors.has(v)) fail('cycle', 'circular reference', item);
          const depth = item.depth + 1;
          if (depth > maxDepth) fail('too_deep', `nesting deeper than ${maxDepth}`, item);
          const children: Pending[] = [];
          if (Array.isArray(v)) {
            const length = v.length;
            if (minBytes + 1 + length > maxBytes) {
              fail('too_large', `value larger than ${maxBytes} bytes when canonicalized`, item);
            }
            for (let i = 0; i < length; i++) {
              if (!Object.hasOwn(v, i)) fail('unsupported_type', `sparse array (hole at index ${i})`, item);
            }
            // Own keys of a dense array are its indices plus `length`; anything else JSON ignores.
            if (Reflect.ownKeys(v).length !== length + 1) {
              fail('unsupported_type', 'array with extra properties', item);
            }
            const array: unknown[] = [];
            copy = array;
            for (let i = 0; i < length; i++) {
              children.push({ value: v[i], into: array, key: i, depth, parent: item });
            }
            minBytes += 2 + Math.max(0, length - 1);
          } else {
            const proto: unknown = Object.getPrototypeOf(v);
            if (proto !== Object.prototype && proto !== null) {
              fail('unsupported_type', `${describeObject(v)} is not a plain object or array`, item);
            }
            const keys = Object.keys(v);
            if (Reflect.ownKeys(v).length !== keys.length) {
              fail('unsupported_type', 'object with non-enumerable or symbol-keyed properties', item);
            }
            const object: Record<string, unknown> = {};
            copy = object;
            for (const key of keys) {
              const child: Pending = { value: undefined, into: object, key, depth, parent: item };
              if (!key.isWellFormed()) fail('lone_surrogate', `key ${quoteForMessage(key)} has a lone surrogate`, child);
              if (FORBIDDEN_KEYS.has(key)) fail('forbidden_key', `forbidden key ${quoteForMessage(key)}`, child);
              child.value = (v as Record<string, unknown>)[key];
              children.push(child);
              minBytes += key.length + 4; // quotes, colon, comma (one too many: still a lower bound +1)
            }
            minBytes += keys.length === 0 ? 2 : 1;
            // Children are still checked (and errors found) in document order; only the
            // copy's key order is fixed here, by inserting the keys first, sorted.
            if (keysInJcsOrder && keys.length > 0) keysInJcsOrder = insertSortedKeys(object, keys);
          }
          ancestors.add(v);
          work.push({ leave: v });
          // Reversed, so children are visited (and errors found) in document order.
          for (let i = children.length - 1; i >= 0; i--) work.push(children[i]!);
          break;
        }
        case 'undefined':
          fail('unsupported_type', 'undefined is not a JSON value (JSON.stringify would drop it)', item);
          break;
        default:
          fail('unsupported_type', `${typeof v} is not a JSON value`, item);
      }
      if (minBytes > maxBytes) fail('too_large', `value larger than ${maxBytes} bytes when canonicalized`, item);
      (item.into as Record<string | number, unknown>)[item.key] = copy;
    }
  } catch (error) {
    if (error instanceof CanonicalizationError) throw error;
    // A getter or Proxy trap threw while we read the value.
    const detail = error instanceof Error ? error.message : String(error);
    fail('unsupported_type', `reading the value threw: ${quoteForMessage(detail)}`, current, { cause: error });
  }
  return { value: root[0], keysInJcsOrder };
}

/**
 * Inserts `keys` (already checked: well-formed, not forbidden) into the empty `object`
 * in UTF-16 code-unit order (the default sort, JCS's order), as placeholders the
 * children's copies fill in later. False, and the object left empty, when a key starts
 * with a digit: the engine may write such a key first whatever its insertion order.
 */
function insertSortedKeys(object: Record<string, unknown>, keys: string[]): boolean {
  for (const key of keys) {
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) return false;
  }
  const sorted = keys.length === 1 ? keys : sortedKeys(keys);
  for (const key of sorted) object[key] = undefined;
  return true;
}

function pathOf(item: Pending | undefined): string {
  const segments: Array<string | number> = [];
  for (let at = item; at?.parent !== undefined; at = at.parent) segments.push(at.key);
  return toJsonPointer(segments.reverse());
}

function describeObject(value: object): string {
  const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? `${name} instance` : 'object';
}
