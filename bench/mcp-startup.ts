/**
 * The gateway's startup, whole process: load the MCP stack, start one stdio upstream
 * (@modelcontextprotocol/server-memory), list and pin its tools, answer a client's
 * tools/list, exit. Timed from outside:
 *   farm-bench -n 10 -- node --conditions=countersign-source bench/mcp-startup.ts [--capable]
 * Prints the in-process milliseconds to the first tools/list answer on stderr.
 * `--capable`: the client declares sampling, elicitation and roots, as desktop apps do (the
 * gateway declares them upstream at the upstream's initialize: started once, not twice).
 */
import { createRequire } from 'node:module';
import { createGate, memoryStore } from '@countersign/core/gate';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { createGateway } from '@countersign/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const started = performance.now();
const memoryBin = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const gate = createGate({
  store: memoryStore(),
  policy: loadPolicy('version: 1\nrules:\n  - id: reads\n    tool: read_graph\n    verdict: allow\n', 'yaml'),
  keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 0x5a))]),
  trustOnFirstUse: true,
});
const gateway = await createGateway({
  upstreams: [{ name: 'memory', command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: '/tmp/countersign-startup-memory.jsonl' } }],
  gate,
  agent: { id: 'bench' },
  principal: 'bench',
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await gateway.connect(serverSide);
const capable = process.argv.includes('--capable');
const client = new Client({ name: 'bench', version: '1' }, capable ? { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } } : {});
await client.connect(clientSide);
const { tools } = await client.listTools();
process.stderr.write(`first tools/list (${tools.length} tools${capable ? ', capable client' : ''}) after ${(performance.now() - started).toFixed(0)} ms\n`);
await client.close();
await gateway.close();
