import { describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { auditsAtomically } from '../gate/common/audited-write.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import { sampleProposal } from '../testing/ledger-samples.ts';
import { hmacKey, Keyring } from '../token/keyring.ts';
import { CheckpointingAuditLog } from './checkpointing-audit-log.ts';
import { MemoryAuditLog } from './memory-audit-log.ts';
import type { AuditEvent } from './types.ts';
import { verifyChain } from './verify-chain.ts';

const keyring = new Keyring([hmacKey('k1', 'a'.repeat(64))]);

/** Lets the checkpoint the listener started (fire and forget) finish. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CheckpointingAuditLog around a store whose ledger appends in its own transactions', () => {
  it('the gate sees through the wrapper: ledger writes still append atomically', () => {
    const inner = new MemoryAuditLog();
    const ledger = new MemoryLedger({ audit: inner });
    const wrapped = new CheckpointingAuditLog(inner, { keyring, everyMs: 0 });
    expect(auditsAtomically({ ledger, audit: wrapped })).toBe(true);
    // An unrelated log: two steps (no atomicity), never the ledger's own log by mistake.
    expect(auditsAtomically({ ledger, audit: new MemoryAuditLog() })).toBe(false);
    expect(auditsAtomically({ ledger: new MemoryLedger(), audit: inner })).toBe(false);
  });

  it('counts records appended inside ledger writes towards the next checkpoint', async () => {
    const inner = new MemoryAuditLog();
    const ledger = new MemoryLedger({ audit: inner });
    const log = new CheckpointingAuditLog(inner, { keyring, clock: manualClock(), everyRecords: 4, everyMs: 0 });
    const events = (id: string): AuditEvent[] => [
      { type: 'proposal', at: 1, proposalId: id },
      { type: 'verdict', at: 1, proposalId: id },
    ];
    // Nothing goes through `log.append`: without the ledger-append listener no checkpoint is ever written.
    for (let i = 0; i < 2; i++) {
      const input = sampleProposal();
      await ledger.recordProposal(input, { audit: () => events(input.proposalId) });
    }
    await settle();
    const records = inner.records();
    expect(records.map((r) => r.type)).toEqual(['proposal', 'verdict', 'proposal', 'verdict', 'checkpoint']);
    expect(verifyChain(records, { checkpoints: { keyring } }).ok).toBe(true);
    await log.close();
  });
});
