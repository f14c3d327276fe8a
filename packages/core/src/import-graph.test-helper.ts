import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
// TypeScript 5's JavaScript API (the repository's compiler, TypeScript 7, runs natively and has no
// in-process parser): preProcessFile lists `import type` and `export type … from` too, which the
// JavaScript-only lexers miss.
import ts from 'typescript-5';

/** File (relative to core's src/, e.g. `gate/gate.ts`) → the core files it imports. */
export type ImportGraph = Map<string, Set<string>>;

const srcDir = fileURLToPath(new URL('.', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Core's source files and their relative imports, `import type` and re-exports included (tests left out). */
export function coreImportGraph(): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles(srcDir)) {
    // preProcessFile reads import/export declarations without type-checking: fast, and it sees type-only imports.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => relative(srcDir, normalize(join(dirname(file), specifier))));
    graph.set(relative(srcDir, file), new Set(targets));
  }
  return graph;
}

/** The same graph between top-level folders (a file at src/ is its own node); imports inside one folder drop out. */
export function folderGraph(graph: ImportGraph): ImportGraph {
  const folderOf = (file: string) => file.split('/')[0] ?? file;
  const folders: ImportGraph = new Map();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target));
    folders.set(from, edges);
  }
  return folders;
}

/** Every strongly connected component of more than one node (or a node importing itself), each sorted. */
export function findCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}
