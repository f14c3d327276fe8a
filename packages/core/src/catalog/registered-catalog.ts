import { SealedTextCache } from './sealed-text-cache.ts';
import type { CatalogEntry, DefinitionStore, ToolCatalog } from './types.ts';

/**
 * Tools that agents run themselves and registered over HTTP: read from the store on every
 * lookup, so every replica sees a registration (or a changed definition) at once. Never
 * vouched for: they run only under the digest pinned in the store.
 *
 * Each entry's definition is sealed (a deep-frozen copy whose canonical text and digest are
 * remembered, see `SealedTextCache`): the pin check compares a remembered digest instead of
 * canonicalizing the definition again on every call.
 */
export function registeredCatalog(store: DefinitionStore): ToolCatalog {
  const sealed = new SealedTextCache();
  const entryOf = async (name: string, digest: string, agent: string): Promise<CatalogEntry> => {
    const found = await store.getDefinitionText(digest);
    // A registration whose definition is missing or altered keeps its digest: the call is
    // recorded under it and the pin check refuses it, rather than inventing another definition.
    const definition = found === undefined ? undefined : sealed.definitionOf(digest, found.text);
    return { name, definition, definitionDigest: digest, vouched: false, registeredBy: agent };
  };
  return {
    async resolve(name) {
      const registration = await store.getRegistration(name);
      return registration === undefined ? undefined : entryOf(name, registration.definitionDigest, registration.agent);
    },
    async list() {
      const registrations = await store.listRegistrations();
      return Promise.all(registrations.map((r) => entryOf(r.toolName, r.definitionDigest, r.agent)));
    },
  };
}
