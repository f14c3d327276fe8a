export { MemoryDefinitionStore } from './memory-definition-store.ts';
export { MAX_DEFINITION_BYTES, type ParsedDefinition, parseToolDefinition } from './parse-definition.ts';
export { parsePinFile, type PinFileEntry, type PinFileResult } from './pin-file.ts';
export { readDefinition } from './read-definition.ts';
export { registeredCatalog } from './registered-catalog.ts';
export { combineCatalogs, staticCatalog } from './static-catalog.ts';
export type {
  CatalogEntry,
  DefinitionStore,
  PinState,
  PinStatus,
  RecordedDefinition,
  RegisterResult,
  ToolCatalog,
  ToolPin,
  ToolRegistration,
} from './types.ts';
