import { sha256Hex } from '../digest.ts';
import { definitionText, type ToolDefinition } from './tools.ts';

/** The canonical text and digest of every definition `sealDefinition` made, by object identity. */
const SEALED = new WeakMap<ToolDefinition, { readonly text: string; readonly digest: string }>();

/**
 * A deep-frozen copy of `definition`'s pinned fields (parsed back from its canonical
 * text), with that text and its digest remembered. Frozen, so the text stays the copy's
 * own: re-serializing it on every dispatch would compute the same bytes again. Later
 * edits to the caller's object do not reach the copy (the code that registered it is the pin).
 */
export function sealDefinition(definition: ToolDefinition): { definition: ToolDefinition; digest: string } {
  const text = definitionText(definition);
  const sealed = deepFreeze(JSON.parse(text)) as ToolDefinition;
  const digest = sha256Hex(text);
  SEALED.set(sealed, { text, digest });
  return { definition: sealed, digest };
}

/** Text and digest of a definition `sealDefinition` returned; undefined for any other object. */
export function sealedDefinition(definition: ToolDefinition): { readonly text: string; readonly digest: string } | undefined {
  return SEALED.get(definition);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
