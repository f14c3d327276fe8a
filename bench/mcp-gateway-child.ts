/**
 * Child process of the MCP rows: the gateway as `countersign mcp --http` runs it (an
 * embedded gate on the store, `createGateway` in front of one Streamable HTTP upstream,
 * `startHttpFront` with a bearer token on 127.0.0.1), built here so the store can also be
 * memory. The gateway options are the config file's defaults except `relist` (argv).
 *
 * argv: `memory` | `sqlite`, the upstream URL, and the relist mode (`default` = the
 * gateway's default, or `call`). IPC: see mcp-child-ipc.ts; sends `{ ready, url }`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { createGateway, startHttpFront } from '@countersign/mcp';
import { openStore } from '../packages/cli/src/serve/open-store.ts';
import { definitionReviewOf } from '../packages/cli/src/serve/definition-review.ts';
import { BENCH_GATEWAY_TOKEN, ECHO_TOOL, serveChildIpc } from './mcp-child-ipc.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

// Allowed by name: the rows measure the forward path, not an approver's clicks.
const POLICY = loadPolicy(`version: 1\nrules:\n  - { id: bench-allow, tool: ${ECHO_TOOL}, verdict: allow }\n`, 'yaml');

async function openBenchStore(kind: string) {
  if (kind === 'memory') return { store: { ledger: new MemoryLedger(), audit: new MemoryAuditLog(), definitions: new MemoryDefinitionStore() }, dispose: async () => {} };
  // What the default config opens: a SQLite file (WAL, synchronous=FULL), in a temp folder here.
  const dir = mkdtempSync(join(tmpdir(), 'countersign-mcp-bench-'));
  const store = await openStore({ kind: 'sqlite', path: join(dir, 'countersign.sqlite') });
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const [kind = 'sqlite', upstreamUrl, relist = 'default'] = process.argv.slice(2);
  if (upstreamUrl === undefined) throw new Error('usage: mcp-gateway-child <memory|sqlite> <upstream url> [default|call]');
  const opened = await openBenchStore(kind);
  const gate = new Gate({
    ledger: opened.store.ledger,
    audit: opened.store.audit,
    definitions: opened.store.definitions,
    policy: POLICY,
    definitionReview: definitionReviewOf(POLICY),
    // The bench's own upstream: its first definition is trusted (a lock file would pin the same digest).
    trustOnFirstUse: true,
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
  });
  const gateway = await createGateway({
    upstreams: [{ name: 'bench', url: upstreamUrl }],
    gate,
    agent: { id: 'mcp-gateway' },
    principal: 'bench-user',
    ...(relist === 'call' ? { relistBeforeCall: true } : {}),
  });
  const front = await startHttpFront({ gateway, bearerToken: BENCH_GATEWAY_TOKEN });
  // The SQLite store counts its durable commits (memory has none).
  const durable = opened.store as { durableCommits?: () => number };
  serveChildIpc(
    { url: front.url },
    async () => {
      await front.close();
      await gateway.close();
      await opened.dispose();
    },
    () => durable.durableCommits?.(),
  );
}

main().catch((error: unknown) => {
  process.send?.({ failed: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
