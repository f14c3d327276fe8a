import { readDefinition } from './read-definition.ts';
import type { CatalogEntry, DefinitionStore, ToolCatalog } from './types.ts';

/**
 * Tools that agents run themselves and registered over HTTP: read from the store on every
 * lookup, so every replica sees a registration (or a changed definition) at once. Never
 * vouched for: they run only under the digest pinned in the store.
 */
export function registeredCatalog(store: DefinitionStore): ToolCatalog {
  const entryOf = async (name: string, digest: string): Promise<CatalogEntry> => {
    const recorded = await readDefinition(store, digest);
    // A registration whose definition is missing or altered keeps its digest: the call is
    // recorded under it and the pin check refuses it, rather than inventing another definition.
    return { name, definition: recorded?.definition, definitionDigest: digest, vouched: false };
  };
  return {
    async resolve(name) {
      const registration = await store.getRegistration(name);
      return registration === undefined ? undefined : entryOf(name, registration.definitionDigest);
    },
    async list() {
      const registrations = await store.listRegistrations();
      return Promise.all(registrations.map((r) => entryOf(r.toolName, r.definitionDigest)));
    },
  };
}
