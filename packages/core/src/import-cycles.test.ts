import { describe, expect, it } from 'vitest';
import { coreImportGraph, findCycles, folderGraph } from './import-graph.test-helper.ts';

// Core's folders run one way (canonical → token → audit → ledger/catalog → policy/passkey → gate):
// a reader can learn a folder from the ones below it alone. A cycle, even of type-only imports,
// breaks that, so every import counts here, `import type` included.
describe('import cycles in core', () => {
  const graph = coreImportGraph();

  it('reads the whole source tree (so it can fail)', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('gate/gate.ts')?.size).toBeGreaterThan(3);
  });

  it('no file imports itself back through any chain of imports', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('no folder imports itself back through another folder', () => {
    expect(findCycles(folderGraph(graph))).toEqual([]);
  });

  it('finds a cycle when one is there', () => {
    const withCycle = new Map(graph);
    withCycle.set('canonical/recipe.ts', new Set([...(graph.get('canonical/recipe.ts') ?? []), 'gate/gate.ts']));
    expect(findCycles(withCycle)).not.toEqual([]);
    expect(findCycles(folderGraph(withCycle))).not.toEqual([]);
  });
});
