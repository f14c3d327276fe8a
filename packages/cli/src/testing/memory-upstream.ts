import { createRequire } from 'node:module';
import { join } from 'node:path';
import { withCompileCache } from '@countersign/core/testing/children';

/** The reference memory MCP server, the upstream of the `countersign mcp` CLI tests. */
export const MEMORY_BIN = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** The `upstreams:` lines of a gateway.yaml serving the memory server (its graph file in `dir`). */
export function memoryUpstreamYaml(dir: string): string[] {
  return [
    'upstreams:',
    '  - name: memory',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(MEMORY_BIN)}]`,
    `    env: { MEMORY_FILE_PATH: ${JSON.stringify(join(dir, 'memory.jsonl'))} }`,
  ];
}

/** The child's environment: the test's, minus COUNTERSIGN_* (the gateway's secrets come from its own store), plus `extra` and the tests' compile cache. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('COUNTERSIGN_'));
  return withCompileCache({ ...Object.fromEntries(inherited), ...extra });
}
