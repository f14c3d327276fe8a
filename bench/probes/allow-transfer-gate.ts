/**
 * The gate the store profiling drivers share: one `transfer` tool under an allow rule, a
 * fresh HMAC key, over the store given. `allowedRoundTrips` runs N clients' propose +
 * dispatch round trips, each call allowed (no approval), failing loudly on anything else.
 */
import { randomBytes } from 'node:crypto';
import { MemoryAuditLog } from '@countersign/core/audit';
import { MemoryDefinitionStore } from '@countersign/core/catalog';
import { Gate, type GateConfig, type ToolRegistry } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { ARGUMENT_CASES } from '../arguments.ts';
import { runWorkers } from '../harness.ts';

type StoreParts = Pick<GateConfig, 'ledger' | 'audit' | 'definitions'>;

const tools: ToolRegistry = { transfer: { execute: () => ({ ok: true }), definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } } } };

export function allowTransferGate(store: StoreParts, extra: Partial<GateConfig> = {}): Gate {
  return new Gate({
    ledger: store.ledger,
    audit: store.audit,
    definitions: store.definitions,
    policy: loadPolicy('version: 1\nrules:\n  - { id: allow, tool: transfer, verdict: allow }\n', 'yaml'),
    keyring: new Keyring([hmacKey('k1', randomBytes(32))]),
    tools,
    ...extra,
  });
}

/** The same gate over a fresh in-memory ledger and audit log (no durability): the HTTP rows' memory server, minus the socket. */
export function allowTransferMemoryGate(): Gate {
  return allowTransferGate({ ledger: new MemoryLedger(), audit: new MemoryAuditLog(), definitions: new MemoryDefinitionStore() });
}

/** The 200-byte argument case, as the JSON text an agent sends. */
export const BENCH_ARGS = JSON.stringify(ARGUMENT_CASES[0]!.args);

export async function allowedRoundTrips(gate: Gate, clients: number, tag: string, count: number): Promise<void> {
  await runWorkers(clients, async (w) => {
    for (let i = w; i < count; i += clients) {
      const p = await gate.propose({ runId: `${tag}-${w}`, sessionId: 's', principal: 'user:bench', callId: `c${i}`, toolName: 'transfer', arguments: BENCH_ARGS });
      if (p.status !== 'allowed') throw new Error(JSON.stringify(p));
      const d = await gate.dispatch({ proposalId: p.proposalId });
      if (d.status !== 'executed') throw new Error(JSON.stringify(d));
    }
  });
}
