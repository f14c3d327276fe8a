import type { ToolRegistry } from '../gate/tools.ts';
import { sealDefinition } from './sealed-definition.ts';
import type { CatalogEntry, ToolCatalog } from './types.ts';

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
  return {
    resolve: async (name) => index.get(name),
    list: async () => [...index.values()],
  };
}

/** The first catalogue that knows a name answers for it; listings are merged the same way. */
export function combineCatalogs(...catalogs: ToolCatalog[]): ToolCatalog {
  return {
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
}
