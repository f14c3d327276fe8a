import type { ToolRegistry } from './tools.ts';
import { sealDefinition } from './sealed-definition.ts';
import type { CatalogEntry, ToolCatalog } from './types.ts';

/** What a catalogue answers without I/O: the entry, `undefined` for no such tool, or ASK (only `resolve` knows). */
export const ASK = Symbol('ask the catalogue');
type InMemoryLookup = (name: string) => CatalogEntry | undefined | typeof ASK;

// Lookups of the catalogues built here, which answer from memory: the dispatch hot path
// reads them in the same turn instead of through two async layers. Keyed by the catalogue
// objects this module returned, so no other catalogue can claim an in-memory answer, and
// kept with the `resolve` they answer for: a catalogue whose `resolve` was replaced since
// (a test double, a wrapper) is asked through its new `resolve`.
const IN_MEMORY = new WeakMap<ToolCatalog, { resolve: ToolCatalog['resolve']; lookup: InMemoryLookup }>();

/**
 * `catalog.resolve(name)`'s answer when it is known without I/O (same answer, no promise),
 * or ASK. Not part of the public API.
 */
export function resolveInMemory(catalog: ToolCatalog, name: string): CatalogEntry | undefined | typeof ASK {
  const known = IN_MEMORY.get(catalog);
  return known === undefined || known.resolve !== catalog.resolve ? ASK : known.lookup(name);
}

/**
 * Tools registered in code: the registry is indexed and every definition copied, frozen
 * and digested once, when the catalogue is built. The code is the pin, so every entry is vouched for.
 * Only own keys count, so "constructor" or "__proto__" never resolve to Object.prototype.
 */
export function staticCatalog(tools: ToolRegistry): ToolCatalog {
  const index = new Map<string, CatalogEntry>();
  for (const name of Object.keys(tools)) {
    const tool = tools[name]!;
    // A sealed copy: its digest is computed here, once, and stays its digest (see admitDefinition).
    const sealed = tool.definition === undefined ? undefined : sealDefinition(tool.definition);
    index.set(name, {
      name,
      definition: sealed?.definition,
      definitionDigest: sealed?.digest,
      execute: tool.execute.bind(tool),
      vouched: true,
    });
  }
  const catalog: ToolCatalog = {
    resolve: async (name) => index.get(name),
    list: async () => [...index.values()],
  };
  IN_MEMORY.set(catalog, { resolve: catalog.resolve, lookup: (name) => index.get(name) });
  return catalog;
}

/** The first catalogue that knows a name answers for it; listings are merged the same way. */
export function combineCatalogs(...catalogs: ToolCatalog[]): ToolCatalog {
  const combined: ToolCatalog = {
    async resolve(name) {
      for (const catalog of catalogs) {
        const entry = await catalog.resolve(name);
        if (entry !== undefined) return entry;
      }
      return undefined;
    },
    async list() {
      const seen = new Map<string, CatalogEntry>();
      for (const catalog of catalogs) {
        for (const entry of (await catalog.list?.()) ?? []) if (!seen.has(entry.name)) seen.set(entry.name, entry);
      }
      return [...seen.values()];
    },
  };
  // The first catalogue that answers from memory with an entry decides, as `resolve` would;
  // one that must be asked (or might know the name) before that leaves the answer to `resolve`.
  const lookup = (name: string) => {
    for (const catalog of catalogs) {
      const entry = resolveInMemory(catalog, name);
      if (entry !== undefined) return entry;
    }
    return undefined;
  };
  IN_MEMORY.set(combined, { resolve: combined.resolve, lookup });
  return combined;
}
