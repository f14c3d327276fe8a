/**
 * Measurement (not part of `npm run bench`): what CASA check 5 costs on the in-memory
 * gate for a 1 KB MCP result. `complete` now digests every relay projection of the raw
 * result (vs the one canonical digest before); `checkRelayed` reads the call and
 * compares the relayed text's digest; a refusal also appends its audit record.
 *
 *   node --conditions=countersign-source bench/probes/relay-check.ts
 */
import { performance } from 'node:perf_hooks';
import { Gate, hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger } from '@countersign/core';
import { digestResult, relayedForms, resultProjections } from '@countersign/core/gate';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const TEXT = 'x'.repeat(1000);
const RESULT = { content: [{ type: 'text', text: TEXT }], structuredContent: { body: TEXT.slice(0, 400) } };
const WARMUP = 2000;

function perOp(label: string, n: number, fn: () => unknown): void {
  for (let i = 0; i < WARMUP; i++) fn();
  const started = performance.now();
  for (let i = 0; i < n; i++) fn();
  console.log(`${label}: ${(((performance.now() - started) * 1000) / n).toFixed(1)} µs/op`);
}

async function perOpAsync(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARMUP; i++) await fn(i);
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  console.log(`${label}: ${(((performance.now() - started) * 1000) / n).toFixed(1)} µs/op`);
}

perOp('complete before: digestResult, 1 KB MCP result', 20_000, () => digestResult(RESULT));
perOp('complete now: resultProjections, 1 KB MCP result', 20_000, () => resultProjections(RESULT));
perOp('relayedForms, 1 KB relayed text', 20_000, () => relayedForms(TEXT));

const audit = new MemoryAuditLog();
const gate = new Gate({
  definitions: new MemoryDefinitionStore(),
  ledger: new MemoryLedger({ audit }),
  audit,
  policy: loadPolicy('version: 1\nrules:\n  - id: reads\n    tool: read\n    verdict: allow\n', 'yaml'),
  keyring: new Keyring([hmacKey('bench', Buffer.alloc(32, 1))]),
  tools: { read: { definition: { name: 'read', description: 'read', inputSchema: { type: 'object' } }, execute: () => RESULT } },
});
const RUNS = 1000;
for (let i = 0; i < RUNS; i++) {
  const proposed = await gate.propose({ runId: `run-${i}`, sessionId: 's', principal: 'user', callId: 'c', toolName: 'read', arguments: {} });
  if (proposed.status !== 'allowed') throw new Error(`expected allowed, got ${proposed.status}`);
  await gate.dispatch({ proposalId: proposed.proposalId });
}
await perOpAsync('checkRelayed (memory), one 1 KB message, passes', 20_000, async (i) => {
  const outcome = await gate.checkRelayed({ runId: `run-${i % RUNS}`, toolMessages: [{ callId: 'c', content: TEXT }] });
  if (!outcome.ok) throw new Error('expected a pass');
});
await perOpAsync('checkRelayed (memory), one 1 KB message, refused and audited', 5_000, async (i) => {
  const outcome = await gate.checkRelayed({ runId: `run-${i % RUNS}`, toolMessages: [{ callId: 'c', content: `${TEXT}!` }] });
  if (outcome.ok) throw new Error('expected a refusal');
});
