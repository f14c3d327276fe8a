import { describe, expect, it } from 'vitest';
import { MemoryDefinitionStore } from './memory-definition-store.ts';
import { registeredCatalog } from './registered-catalog.ts';
import { ASK, combineCatalogs, resolveInMemory, staticCatalog } from './static-catalog.ts';
import type { ToolCatalog } from './types.ts';

// resolveInMemory lets dispatch skip two async layers; it must answer exactly what
// `resolve` answers, or ASK (never a different entry, never "no such tool" by mistake).
const tools = { transfer: { execute: () => 'ok', definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } } } };

describe('resolveInMemory', () => {
  it('answers what resolve answers for code-registered tools', async () => {
    const catalog = staticCatalog(tools);
    expect(resolveInMemory(catalog, 'transfer')).toBe(await catalog.resolve('transfer'));
    expect(resolveInMemory(catalog, 'missing')).toBeUndefined();
    expect(resolveInMemory(catalog, 'constructor')).toBeUndefined();
  });

  it('in a combination, answers only while no catalogue that must be asked could know the name first', async () => {
    const registered = registeredCatalog(new MemoryDefinitionStore());
    const combined = combineCatalogs(staticCatalog(tools), registered);
    expect(resolveInMemory(combined, 'transfer')).toBe(await combined.resolve('transfer'));
    expect(resolveInMemory(combined, 'missing')).toBe(ASK);
    const registeredFirst = combineCatalogs(registered, staticCatalog(tools));
    expect(resolveInMemory(registeredFirst, 'transfer')).toBe(ASK);
  });

  it('asks any other catalogue, and one whose resolve was replaced', async () => {
    const custom: ToolCatalog = { resolve: async () => undefined };
    expect(resolveInMemory(custom, 'transfer')).toBe(ASK);
    const catalog = staticCatalog(tools);
    catalog.resolve = async () => undefined;
    expect(resolveInMemory(catalog, 'transfer')).toBe(ASK);
    const combined = combineCatalogs(staticCatalog(tools));
    const inner = staticCatalog(tools);
    const wrapping = combineCatalogs(inner);
    inner.resolve = async () => undefined;
    expect(resolveInMemory(wrapping, 'transfer')).toBe(ASK);
    expect(resolveInMemory(combined, 'transfer')).toBe(await combined.resolve('transfer'));
  });
});
