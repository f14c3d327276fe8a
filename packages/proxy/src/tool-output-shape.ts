import { isRecord } from './relayed.ts';

/** Fields of a text part that change nothing the model reads beyond its text (`cache_control` is a caching hint). */
const INERT_TEXT_FIELDS = new Set(['type', 'text', 'cache_control']);

/** Where a relayed tool output has a shape the relay check cannot compare: `at` below the output (`''`: the whole of it), and why. */
export interface UnknownShape {
  at: string;
  why: string;
}

/**
 * Deny by default for the shape of a relayed tool output. The relay check compares the
 * output's text (a string, or the texts of its text parts, joined), so the proxy relays
 * only a string or a list of `textType` parts carrying their text and nothing else the
 * model reads. Any other shape (another part type, a part type the API adds later, a text
 * part with `citations` or `annotations`, an object) would let the model read more than
 * the check compared: it is refused before the ledger is asked, never forwarded.
 */
export function unknownOutputShape(output: unknown, textType: string): UnknownShape | undefined {
  if (typeof output === 'string') return undefined;
  if (!Array.isArray(output)) return { at: '', why: `a tool output must be text or a list of ${textType} parts, not ${kindOf(output)}` };
  for (const [j, part] of output.entries()) {
    if (!isRecord(part) || part.type !== textType || typeof part.text !== 'string') {
      return { at: `[${j}]`, why: `a part of type ${kindOf(part)} cannot be checked; only ${textType} parts carrying their text are relayed` };
    }
    const extra = Object.keys(part).find((key) => !INERT_TEXT_FIELDS.has(key));
    if (extra !== undefined) return { at: `[${j}]`, why: `a ${textType} part may carry only its text (and cache_control): its ${extra} is more text the model reads` };
  }
  return undefined;
}

function kindOf(value: unknown): string {
  if (isRecord(value)) return typeof value.type === 'string' ? value.type : 'an object without a type';
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}
