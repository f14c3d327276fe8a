export { MemoryDefinitionStore } from './memory-definition-store.ts';
export { type ParsedDefinition, parseToolDefinition } from './parse-definition.ts';
export { parsePinFile, type PinFileEntry, type PinFileResult } from './pin-file.ts';
export { staticCatalog } from './static-catalog.ts';
export type { CatalogEntry, DefinitionStore, PinState, PinStatus, RegisterResult, ToolCatalog, ToolPin, ToolRegistration } from './types.ts';
