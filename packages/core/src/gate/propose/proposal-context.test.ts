import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../policy/load.ts';
import { makeGateFixture, requestView } from '../../testing/gate-fixture.ts';
import { MAX_PROPOSAL_CONTEXT_LENGTH } from '../../call-ids.ts';

const DESCRIBED_POLICY = `
version: 1
rules:
  - id: transfers
    description: Transfers move real money; finance checks each one.
    tool: transfer
    verdict: approve
    approval:
      approvers: { roles: [finance] }
`;

describe('proposal context (what the agent says about a call) and the rule description', () => {
  it('records the agent context with the call and the rule description with its request', async () => {
    const f = makeGateFixture({ policy: loadPolicy(DESCRIBED_POLICY, 'yaml') });
    const words = 'The user asked me to pay invoice 7.\u202E (see attached)';
    const proposed = await f.gate.propose(f.call({ context: words }));
    expect(proposed.status).toBe('approval_required');
    if (proposed.status !== 'approval_required') return;
    const view = await requestView(f.gate, proposed.requestId);
    expect(view?.proposal.context).toBe(words);
    expect(view?.request.ruleDescription).toBe('Transfers move real money; finance checks each one.');
  });

  it('the context is not part of the call: the same call with other words is the same call (idempotent repeat)', async () => {
    const f = makeGateFixture();
    const call = f.call({ context: 'first words' });
    const first = await f.gate.propose(call);
    const again = await f.gate.propose({ ...call, context: 'other words' });
    expect(first.status).toBe('approval_required');
    expect(again).toMatchObject({ status: 'approval_required', proposalId: (first as { proposalId: string }).proposalId });
  });

  it('refuses a context over the bound, a non-string or a malformed one, recording nothing', async () => {
    const f = makeGateFixture();
    for (const context of ['x'.repeat(MAX_PROPOSAL_CONTEXT_LENGTH + 1), 42, '\uD800 lone surrogate']) {
      const call = f.call({ context: context as string });
      const outcome = await f.gate.propose(call);
      expect(outcome).toMatchObject({ status: 'rejected', reason: 'invalid_call' });
      expect(await f.ledger.findProposalByCall(call.runId, call.callId)).toBeUndefined();
    }
    const atBound = await f.gate.propose(f.call({ context: 'y'.repeat(MAX_PROPOSAL_CONTEXT_LENGTH) }));
    expect(atBound.status).toBe('approval_required');
  });

  it('a response of several calls keeps each call its own context', async () => {
    const f = makeGateFixture();
    const outcomes = await f.gate.proposeResponse({
      runId: 'run-ctx',
      sessionId: 'session-1',
      principal: 'user:42',
      toolCalls: [
        { id: 'a', name: 'transfer', arguments: { amount: 500, to: 'alice' }, context: 'pays alice' },
        { id: 'b', name: 'transfer', arguments: { amount: 700, to: 'bob' } },
      ],
    });
    expect(outcomes.map((o) => o.status)).toEqual(['approval_required', 'approval_required']);
    expect((await f.ledger.findProposalByCall('run-ctx', 'a'))?.context).toBe('pays alice');
    expect('context' in ((await f.ledger.findProposalByCall('run-ctx', 'b')) ?? {})).toBe(false);
  });

  it('a call an allow rule lets through only because the tool is destructive says so in words', async () => {
    const policy = loadPolicy(`version: 1\nrules:\n  - id: fs\n    tool: "fs__*"\n    description: Files are fine.\n    verdict: allow\n`, 'yaml');
    const f = makeGateFixture({
      policy,
      trustOnFirstUse: true,
      tools: { fs__rm: { execute: () => ({}), definition: { name: 'fs__rm', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } } } },
    });
    const proposed = await f.gate.propose(f.call({ toolName: 'fs__rm', arguments: '{}' }));
    expect(proposed.status).toBe('approval_required');
    if (proposed.status !== 'approval_required') return;
    const view = await requestView(f.gate, proposed.requestId);
    expect(view?.request.ruleDescription).toMatch(/destructiveHint/);
    expect(view?.request.ruleDescription).not.toBe('Files are fine.');
  });

  it('approvals.viewOfCall finds the request a call opened; an allowed call and an unknown id have none', async () => {
    const f = makeGateFixture();
    const asked = await f.gate.propose(f.call());
    const allowed = await f.gate.propose(f.call({ arguments: '{"amount":5,"to":"bob"}' }));
    if (asked.status !== 'approval_required' || allowed.status !== 'allowed') throw new Error('unexpected verdicts');
    expect(await f.gate.approvals.viewOfCall(asked.proposalId)).toMatchObject({ ok: true, view: { request: { requestId: asked.requestId } } });
    expect(await f.gate.approvals.viewOfCall(allowed.proposalId)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await f.gate.approvals.viewOfCall('nope')).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await f.gate.approvals.viewOfCall(42 as never)).toMatchObject({ ok: false, reason: 'not_found' });
  });
});
