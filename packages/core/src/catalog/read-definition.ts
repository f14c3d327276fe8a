import { sha256Hex } from '../digest.ts';
import type { ToolDefinition } from './tools.ts';
import type { DefinitionStore, RecordedDefinition } from './types.ts';

/**
 * The definition recorded under `digest`, or undefined. The stored text is hashed again:
 * a row edited in the database reads as missing, never as the definition an approver
 * approved.
 */
export async function readDefinition(store: DefinitionStore, digest: string | undefined): Promise<RecordedDefinition | undefined> {
  if (digest === undefined) return undefined;
  const found = await store.getDefinitionText(digest);
  if (found === undefined || sha256Hex(found.text) !== digest) return undefined;
  return { digest, definition: JSON.parse(found.text) as ToolDefinition, firstSeenAt: found.firstSeenAt };
}
