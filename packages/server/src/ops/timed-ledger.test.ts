import { MemoryAuditLog } from '@countersign/core/audit';
import { MemoryLedger } from '@countersign/core/ledger';
import { expect, it } from 'vitest';
import { timedLedger } from './timed-ledger.ts';

it('times every store call, ok or failed, and passes properties through (the gate still sees the same audit log)', async () => {
  const ledger = new MemoryLedger({ audit: new MemoryAuditLog() });
  const seen: Array<[string, 'ok' | 'error']> = [];
  const timed = timedLedger(ledger, (operation, seconds, outcome) => {
    expect(seconds).toBeGreaterThanOrEqual(0);
    seen.push([operation, outcome]);
  });
  expect(timed.auditLog).toBeDefined();
  expect(timed.auditLog).toBe(ledger.auditLog);
  expect(await timed.getRunOwner('nobody')).toBeUndefined();
  // The same wrapper each time: no allocation per call.
  expect(timed.getProposal).toBe(timed.getProposal);
  await expect(timed.addDecision('no-such-request', { approver: 'a', decision: 'approve', at: 0 } as never, { now: 0, tokenIdIfApproved: 't' })).resolves.toBeDefined();
  const failing = timedLedger({ ...ledger, getProposal: () => Promise.reject(new Error('down')) } as unknown as MemoryLedger, (operation, _s, outcome) => seen.push([operation, outcome]));
  await expect(failing.getProposal('p')).rejects.toThrow('down');
  expect(seen).toEqual([
    ['getRunOwner', 'ok'],
    ['addDecision', 'ok'],
    ['getProposal', 'error'],
  ]);
});
