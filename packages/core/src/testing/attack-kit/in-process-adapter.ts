import { randomUUID } from 'node:crypto';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import type { AuditLog } from '../../audit/types.ts';
import { MemoryDefinitionStore } from '../../catalog/memory-definition-store.ts';
import { manualClock } from '../../clock.ts';
import { Gate } from '../../gate/gate.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { loadPolicy } from '../../policy/load.ts';
import { hmacKey, Keyring } from '../../token/keyring.ts';
import { mintApprovalToken } from '../../token/mint.ts';
import type { GateAttackAdapter } from './adapter.ts';
import { ATTACK_KIT_POLICY_YAML, attackKitTools, KIT_AGENTS, KIT_APPROVER, KIT_CHANGED_DEFINITION } from './fixtures.ts';
import { tamperedLedger } from './tampered-ledger.ts';

export interface InProcessAttackOptions {
  ledger?: LedgerStore | undefined;
  audit?: AuditLog | undefined;
  keyring?: Keyring | undefined;
  close?: (() => Promise<void>) | undefined;
}

/**
 * The attack kit's adapter for an in-process `Gate` (memory stores by default; pass a
 * SQLite or Postgres ledger to run the kit over it). Its clock is a manual one the kit
 * can advance; a definition change builds a new gate over the same stores, as a
 * restart with a changed tool would.
 */
export function inProcessAttackAdapter(options: InProcessAttackOptions = {}): GateAttackAdapter {
  const clock = manualClock(Date.UTC(2026, 5, 1, 12));
  const audit = options.audit ?? new MemoryAuditLog();
  // The memory store's ledger appends to its audit log in the same step, like the SQL stores.
  const ledger = options.ledger ?? new MemoryLedger({ audit: audit instanceof MemoryAuditLog ? audit : undefined });
  const keyring = options.keyring ?? new Keyring([hmacKey('kit-k1', Buffer.alloc(32, 0x6b))]);
  const policy = loadPolicy(ATTACK_KIT_POLICY_YAML, 'yaml');
  let tools = attackKitTools();
  let readLedger: LedgerStore = ledger;
  // A changed tool or a tampered row: a new gate over the same stores, as after a restart.
  const build = () => new Gate({ definitions: new MemoryDefinitionStore(), ledger: readLedger, audit, policy, keyring, tools, clock, newId: () => `kit-${randomUUID()}` });
  let gate = build();
  const signingKey = keyring.active();
  return {
    port: (agent) => gate.port(KIT_AGENTS[agent]),
    async decide(requestId, decision) {
      const decided = await gate.approvals.decide(KIT_APPROVER, { requestId, decision });
      if (!decided.ok) throw new Error(`attack kit: decision refused: ${decided.reason}`);
    },
    advanceClock: (ms) => clock.advance(ms),
    auditRecords: () => audit.read({ limit: 1_000_000 }),
    async changeToolDefinition(toolName) {
      if (toolName !== KIT_CHANGED_DEFINITION.name) throw new Error(`attack kit: cannot change ${toolName}`);
      tools = attackKitTools({ pinned: KIT_CHANGED_DEFINITION });
      gate = build();
    },
    async revoke(requestId) {
      const revoked = await gate.approvals.revoke(KIT_APPROVER, requestId);
      if (!revoked.ok) throw new Error(`attack kit: revoke refused: ${revoked.reason}`);
    },
    signClaims: (claims) => mintApprovalToken(claims as unknown as Parameters<typeof mintApprovalToken>[0], keyring),
    publicKeyPem: () => (signingKey.alg === 'EdDSA' ? signingKey.publicKey.export({ format: 'pem', type: 'spki' }).toString() : undefined),
    async tamperStoredCall(proposalId, edit) {
      readLedger = tamperedLedger(readLedger, proposalId, edit);
      gate = build();
    },
    ...(options.close === undefined ? {} : { close: options.close }),
  };
}
