import { sortedKeys } from './sorted-keys.ts';

/**
 * RFC 8785 (JCS) text of a flat plain object (members that are well-formed strings, finite
 * numbers, booleans or null), or undefined for anything else, which the caller hands to
 * `serializeCanonical` (that writes it or throws, as it always did). For the small flat
 * objects on the dispatch path (audit details, typical tool results), without the general
 * serializer's frames and cycle tracking.
 *
 * Same bytes as `serializeCanonical` (a property test pins that): keys in UTF-16 code-unit
 * order (the default sort), strings and keys through JSON.stringify (how JCS escapes
 * them), numbers through String() (JCS number formatting for finite numbers, -0 → "0"),
 * undefined members absent.
 */
export function flatCanonicalText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = value as { readonly [key: string]: unknown };
  // A toJSON (own or inherited) changes what the serializer writes: leave it to it.
  if (typeof record.toJSON === 'function') return undefined;
  let text = '';
  for (const key of sortedKeys(Object.keys(record))) {
    const item = record[key];
    let encoded: string;
    if (item === undefined) continue;
    if (typeof item === 'string') {
      if (!item.isWellFormed()) return undefined;
      encoded = JSON.stringify(item);
    } else if (typeof item === 'number') {
      if (!Number.isFinite(item)) return undefined;
      encoded = String(item);
    } else if (typeof item === 'boolean' || item === null) {
      encoded = String(item);
    } else {
      return undefined;
    }
    if (!key.isWellFormed()) return undefined;
    text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${encoded}`;
  }
  return `{${text}}`;
}
