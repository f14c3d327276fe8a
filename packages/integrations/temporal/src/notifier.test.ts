import { describe, expect, it } from 'vitest';
import { temporalFixture, WORKFLOW_ID } from './activities.test-helper.ts';
import { notifyTemporalOnDecision } from './notifier.ts';
import type { DecisionSignal } from './workflow/contract.ts';

const BIG = { amount: 500, to: 'alice' };

async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('the decision notifier (gate events → signal to workflow id = run id)', () => {
  it('signals the waiting workflow when the request is approved or denied', async () => {
    const f = temporalFixture();
    const sent: Array<{ workflowId: string; signal: DecisionSignal }> = [];
    const stop = notifyTemporalOnDecision(f.gate.events, async (workflowId, signal) => {
      sent.push({ workflowId, signal });
    });
    const [approved, denied] = await f.propose([
      { id: 'call-1', name: 'transfer', arguments: BIG },
      { id: 'call-2', name: 'transfer', arguments: { amount: 900, to: 'bob' } },
    ]);
    if (approved?.status !== 'approval_required' || denied?.status !== 'approval_required') throw new Error('expected approvals');
    await f.approve(approved.requestId);
    await f.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: denied.requestId, decision: 'deny' });
    await settle();
    expect(sent).toEqual([
      { workflowId: WORKFLOW_ID, signal: { requestId: approved.requestId, decision: 'approve' } },
      { workflowId: WORKFLOW_ID, signal: { requestId: denied.requestId, decision: 'deny' } },
    ]);
    stop();
  });

  it('a failing signal is reported, never thrown into the gate', async () => {
    const f = temporalFixture();
    const errors: unknown[] = [];
    notifyTemporalOnDecision(
      f.gate.events,
      async () => {
        throw new Error('temporal unreachable');
      },
      (error) => errors.push(error),
    );
    const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
    if (outcome?.status !== 'approval_required') throw new Error(String(outcome?.status));
    await f.approve(outcome.requestId);
    await settle();
    expect(errors).toHaveLength(1);
    // The decision stands; the workflow would find it when it wakes (at expiry it reports expired, never runs blind).
    expect((await f.port.token(outcome.requestId)).ok).toBe(true);
  });
});
