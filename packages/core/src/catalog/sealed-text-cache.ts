import { sha256Hex } from '../digest.ts';
import type { ToolDefinition } from './tools.ts';
import { sealDefinition } from './sealed-definition.ts';

/**
 * Distinct definitions kept, and their text's total length: past either the oldest is
 * dropped (and sealed again if it comes back). A gateway in front of several servers
 * lists a few hundred tools of a few KB; a definition may be up to 256 KB.
 */
const MAX_SEALED = 1024;
const MAX_SEALED_CHARS = 16 * 1024 * 1024;

/**
 * Sealed definitions by the stored text they were parsed from, for a catalogue that reads
 * a definition's text from the store on every lookup (`registeredCatalog`). Without it,
 * every call hashed the stored text, parsed it, and `admitDefinition` canonicalized and
 * hashed the parsed copy again, twice per call (propose and authorize).
 *
 * Keyed by digest but answered only for the very text that was verified and sealed: text
 * the store returns is compared whole, so an edited row never reuses a stale definition
 * (it is hashed again and reads as missing). The definition handed out is deep-frozen
 * (`sealDefinition`), so no caller can change it under its digest; and `sealDefinition`
 * digests its own canonical text, so stored text that is not canonical gets a sealed
 * digest other than its row's and `admitDefinition` refuses it as before.
 */
export class SealedTextCache {
  readonly #byDigest = new Map<string, { text: string; definition: ToolDefinition }>();
  #chars = 0;

  /** The sealed definition recorded as `text` under `digest`, or undefined when `text` is not that digest's. */
  definitionOf(digest: string, text: string): ToolDefinition | undefined {
    const cached = this.#byDigest.get(digest);
    if (cached !== undefined && cached.text === text) return cached.definition;
    // A row edited in the database reads as missing, never as the definition an approver approved.
    if (sha256Hex(text) !== digest) return undefined;
    const { definition } = sealDefinition(JSON.parse(text) as ToolDefinition);
    this.#drop(digest);
    while (this.#byDigest.size > 0 && (this.#byDigest.size >= MAX_SEALED || this.#chars + text.length > MAX_SEALED_CHARS)) {
      this.#drop(this.#byDigest.keys().next().value!);
    }
    this.#byDigest.set(digest, { text, definition });
    this.#chars += text.length;
    return definition;
  }

  #drop(digest: string): void {
    const cached = this.#byDigest.get(digest);
    if (cached === undefined) return;
    this.#byDigest.delete(digest);
    this.#chars -= cached.text.length;
  }
}
