import { MemoryLedger } from '@countersign/core/ledger';
import { describe, expect, it } from 'vitest';
import { failureOf, temporalFixture, WORKFLOW_ID } from './activities.test-helper.ts';
import { FAILURE_TYPES } from './workflow/contract.ts';

const BIG = { amount: 500, to: 'alice' };

describe('activities through MockActivityEnvironment against a real gate', () => {
  it('propose uses the workflow id as run id; an approved call runs once with the ledger arguments and is completed', async () => {
    const f = temporalFixture();
    const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
    if (outcome?.status !== 'approval_required') throw new Error(String(outcome?.status));
    expect(outcome.expiresAt).toBe(f.clock() + 600_000);
    await f.approve(outcome.requestId);
    const result = await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)]);
    expect(result).toEqual({ transferred: 500 });
    expect(f.ran).toEqual([{ tool: 'transfer', args: BIG }]);
    const status = await f.port.callStatus(outcome.proposalId);
    expect(status).toMatchObject({ ok: true, call: { runId: WORKFLOW_ID, state: 'succeeded' } });
  });

  it('an allowed call runs without an approval request', async () => {
    const f = temporalFixture();
    const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]);
    if (outcome?.status !== 'allowed') throw new Error(String(outcome?.status));
    expect(await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, { amount: 5, to: 'bob' })])).toEqual({ transferred: 5 });
  });

  it('a retried propose attempt gets the same proposal back', async () => {
    const f = temporalFixture();
    const first = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
    const again = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
    expect(again).toEqual(first);
  });

  it('a propose whose write the store fails (or loses the reply of) fails the attempt retryably, never as a refusal in the history; the retry answers from the ledger', async () => {
    for (const kind of ['down', 'lost_reply'] as const) {
      // The first attempt meets a failing store: its write fails before COMMIT (the re-read
      // shows nothing: store_unavailable), or commits with the reply lost and the re-read
      // that would settle it fails too (the gate cannot tell: outcome_unknown). The retry
      // meets the store back up.
      let storeDown = true;
      const ledger = new MemoryLedger();
      const record = ledger.recordProposal.bind(ledger);
      ledger.recordProposal = async (...args) => {
        if (!storeDown) return record(...args);
        if (kind === 'lost_reply') await record(...args);
        throw new Error('connection reset');
      };
      const find = ledger.findProposalByCall.bind(ledger);
      ledger.findProposalByCall = async (...args) => {
        if (storeDown && kind === 'lost_reply') throw new Error('connection refused');
        return find(...args);
      };
      const f = temporalFixture({ ledger });
      const calls = [{ id: 'call-1', name: 'transfer', arguments: BIG }];
      const failure = await f.propose(calls).then(
        () => undefined,
        (error: unknown) => error as { type?: string; nonRetryable?: boolean; message: string },
      );
      expect(failure, kind).toMatchObject({ type: FAILURE_TYPES.storeUnavailable, nonRetryable: false });
      expect(failure?.message, kind).toMatch(kind === 'down' ? 'store_unavailable' : 'outcome_unknown');
      storeDown = false;
      const [retried] = await f.propose(calls);
      expect(retried?.status, kind).toBe('approval_required');
    }
  });

  it('a pending request is refused as approval-required without spending anything; after approval it runs', async () => {
    const f = temporalFixture();
    const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
    if (outcome?.status !== 'approval_required') throw new Error(String(outcome?.status));
    const early = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)]));
    expect(early.type).toBe(FAILURE_TYPES.approvalRequired);
    await f.approve(outcome.requestId);
    expect(await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)])).toEqual({ transferred: 500 });
    expect(f.ran).toHaveLength(1);
  });

  it('a failing tool is completed as failed and refused non-retryably (the grant is spent)', async () => {
    const f = temporalFixture();
    const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]);
    if (outcome?.status !== 'allowed') throw new Error(String(outcome?.status));
    const broken = async () => {
      throw new Error('bank offline');
    };
    const failed = await failureOf(f.runActivity('transfer', broken, [f.envelope(outcome, { amount: 5, to: 'bob' })]));
    expect(failed).toMatchObject({ type: FAILURE_TYPES.toolFailed, message: expect.stringContaining('bank offline') });
    expect(await f.port.callStatus(outcome.proposalId)).toMatchObject({ ok: true, call: { state: 'failed' } });
  });
});
