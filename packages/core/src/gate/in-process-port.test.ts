import { describe, expect, it } from 'vitest';
import { FINANCE, makeGateFixture, requestView } from '../testing/gate-fixture.ts';

describe('in-process GatePort', () => {
  it('propose records every call of a model response, in order, one outcome each', async () => {
    const f = makeGateFixture();
    const port = f.gate.port({ id: 'agent-a' });
    const outcomes = await port.propose({
      runId: 'run-p',
      sessionId: 's',
      principal: 'user:1',
      responseRef: 'resp-9',
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: { path: 'a' } },
        { id: 'c2', name: 'transfer', arguments: '{"amount":500,"to":"bob"}' },
        { id: 'c3', name: 'delete_repo', arguments: {} },
        { id: 'c4', name: 'transfer', arguments: '{"amount":1,"amount":2}' },
      ],
    });
    expect(outcomes.map((o) => o.status)).toEqual(['allowed', 'approval_required', 'denied', 'rejected']);
    const first = await f.ledger.getProposal((outcomes[0] as { proposalId: string }).proposalId);
    expect(first).toMatchObject({ callId: 'c1', agent: 'agent-a', responseRef: 'resp-9' });
    expect(await port.propose(null as never)).toMatchObject([{ status: 'rejected', reason: 'invalid_call' }]);
  });

  it('waitForDecision: pending on timeout or abort, then the decision; expired; edited; others see not_found', async () => {
    const f = makeGateFixture();
    const port = f.gate.port();
    const [pending] = await port.propose({
      runId: 'run-w',
      sessionId: 's',
      principal: 'user:1',
      toolCalls: [{ id: 'c1', name: 'transfer', arguments: { amount: 500, to: 'bob' } }],
    });
    if (pending?.status !== 'approval_required') throw new Error('expected approval_required');
    const controller = new AbortController();
    // The longest wait one call may ask for (10 minutes), far past the test timeout: only the abort can end it in time.
    const aborted = port.waitForDecision(pending.requestId, { timeoutMs: 600_000, signal: controller.signal });
    controller.abort();
    expect(await aborted).toMatchObject({ ok: true, status: 'pending' });
    expect(await f.gate.port({ id: 'agent-b' }).waitForDecision(pending.requestId, { timeoutMs: 10 })).toMatchObject({ ok: false, reason: 'not_found' });

    const waiting = port.waitForDecision(pending.requestId, { timeoutMs: 5_000 });
    await f.gate.approvals.decide(FINANCE, { requestId: pending.requestId, decision: 'approve', editedArguments: { amount: 400, to: 'bob' } });
    const edited = await waiting;
    if (!edited.ok || edited.status !== 'edited') throw new Error(`expected edited, got ${JSON.stringify(edited)}`);
    // Narrowed by status, the edited ids are plain strings: no cast, no undefined check.
    const editedRequest = await requestView(f.gate, edited.editedRequestId);
    expect(editedRequest?.proposal).toMatchObject({ proposalId: edited.editedProposalId, canonicalArgs: '{"amount":400,"to":"bob"}' });

    const [stale] = await port.propose({
      runId: 'run-w',
      sessionId: 's',
      principal: 'user:1',
      toolCalls: [{ id: 'c2', name: 'transfer', arguments: { amount: 700, to: 'bob' } }],
    });
    f.clock.advance(601_000);
    expect(await port.waitForDecision((stale as { requestId: string }).requestId, { timeoutMs: 5_000 })).toMatchObject({ ok: true, status: 'expired' });
  });
});
