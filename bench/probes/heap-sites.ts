/** A node of a V8 sampling heap profile (HeapProfiler.getSamplingProfile / stopSampling). */
interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/**
 * Sums a sampling heap profile's bytes by allocating function ("name file:line", paths
 * shortened to packages/, bench/ or node_modules/), largest first, with the total.
 */
export function bytesBySite(head: unknown): { total: number; sites: [string, number][] } {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    const f = node.callFrame;
    const site = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(packages|bench|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(head as HeapNode);
  return { total, sites: [...bySite].sort((a, b) => b[1] - a[1]) };
}
