import { describe, expect, it } from 'vitest';
import { MemoryLedger } from './memory-ledger.ts';
import { SAMPLE_T0, sampleProposal, sampleRequest } from '../testing/ledger-samples.ts';

// The memory ledger hands out its stored records without copying them. That is safe only
// because they are sealed: frozen all the way down, and replaced (never edited) by writes.

describe('MemoryLedger: records handed out without copies are sealed', () => {
  it('a caller cannot change the ledger through a record it was given', async () => {
    const ledger = new MemoryLedger();
    const input = sampleProposal();
    await ledger.recordProposal(input, { request: sampleRequest(input.proposalId) });
    const read = (await ledger.getProposal(input.proposalId))!;
    const request = (await ledger.findApprovalRequestByProposal(input.proposalId))!;
    expect(() => {
      read.state = 'dispatched';
    }).toThrow(TypeError);
    expect(() => {
      read.canonicalArgs = '{"amount":1000000}';
    }).toThrow(TypeError);
    expect(() => {
      request.status = 'approved';
    }).toThrow(TypeError);
    expect(() => request.decisions.push({ approver: 'mallory', decision: 'approve', at: SAMPLE_T0 })).toThrow(TypeError);
    expect(() => request.eligible.approvers?.push('mallory') ?? request.eligible.roles?.push('mallory')).toThrow(TypeError);
    expect(await ledger.getProposal(input.proposalId)).toMatchObject({ state: 'proposed', canonicalArgs: input.canonicalArgs });
    expect(await ledger.findApprovalRequestByProposal(input.proposalId)).toMatchObject({ status: 'pending', decisions: [] });
  });

  it('a write replaces the record: what was read before stays what it was', async () => {
    const ledger = new MemoryLedger();
    const input = sampleProposal();
    await ledger.recordProposal(input);
    const before = (await ledger.getProposal(input.proposalId))!;
    const consumed = await ledger.consume({ proposalId: input.proposalId, now: SAMPLE_T0 + 1 });
    expect(consumed).toMatchObject({ ok: true, proposal: { state: 'dispatched' } });
    expect(before.state).toBe('proposed');
    const done = await ledger.recordResult(input.proposalId, { status: 'succeeded', resultDigest: 'a'.repeat(64), at: SAMPLE_T0 + 2 });
    expect(done).toMatchObject({ ok: true, created: true });
    const after = (await ledger.getProposal(input.proposalId))!;
    expect(after).toMatchObject({ state: 'dispatched', result: { resultDigest: 'a'.repeat(64) } });
    expect(Object.isFrozen(after.result)).toBe(true);
    expect(before.result).toBeUndefined();
  });
});
