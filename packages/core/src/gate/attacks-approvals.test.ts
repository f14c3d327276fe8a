import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../audit/types.ts';
import { verifyChain } from '../audit/verify-chain.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import { checkDecisionEvidence } from './approvals/decision-evidence.ts';
import { FINANCE, makeGateFixture, requestView, listedFor } from '../testing/gate-fixture.ts';
import { hmacKey, Keyring } from '../token/keyring.ts';
import { tokenParts } from './attacks.test-helper.ts';

// Attacks on approvals: ineligible deciders, listings, forged decision records, denied and edited calls, the audit chain, restarts.

describe('approvals', () => {
  it('an approver outside the rule cannot decide; n-of-m needs distinct approvers', async () => {
    const f = makeGateFixture();
    const c = f.call({ toolName: 'deploy', arguments: { service: 'api' } });
    const proposed = await f.gate.propose(c);
    if (proposed.status !== 'approval_required') throw new Error('expected approval');
    const requestId = proposed.requestId;
    expect(await f.gate.approvals.decide({ id: 'mallory' }, { requestId, decision: 'approve' })).toMatchObject({
      ok: false,
      reason: 'not_eligible',
    });
    expect(await f.gate.approvals.decide({ id: 'user:42' }, { requestId, decision: 'approve' })).toMatchObject({
      ok: false,
      reason: 'not_eligible',
    });
    await f.gate.approvals.decide({ id: 'alice' }, { requestId, decision: 'approve' });
    expect(await f.gate.approvals.token(requestId)).toMatchObject({ ok: false, reason: 'not_approved' });
    expect(await f.gate.approvals.decide({ id: 'alice' }, { requestId, decision: 'approve' })).toMatchObject({
      ok: false,
      reason: 'duplicate_approver',
    });
    await f.gate.approvals.decide({ id: 'bob' }, { requestId, decision: 'approve' });
    const issued = await f.gate.approvals.token(requestId);
    if (!issued.ok) throw new Error('expected token');
    const claims = JSON.parse(Buffer.from(tokenParts(issued.token)[1], 'base64url').toString());
    expect(claims.apr).toEqual(['alice', 'bob']);
    expect(await f.gate.dispatch(f.dispatchFor(c, issued.token))).toMatchObject({ status: 'executed' });
  });

  it('lists only requests the approver may decide, filling the limit past ineligible ones', async () => {
    const f = makeGateFixture();
    const transfer = await f.gate.propose(f.call());
    for (let i = 0; i < 3; i++) {
      f.clock.advance(1000);
      await f.gate.propose(f.call({ toolName: 'deploy', arguments: { service: `s${i}` } }));
    }
    const mine = await listedFor(f.gate, FINANCE, 'pending', 1);
    expect(mine.map((v) => v.request.requestId)).toEqual([
      transfer.status === 'approval_required' ? transfer.requestId : 'none',
    ]);
    expect(await listedFor(f.gate, { id: 'alice' }, 'pending', 2)).toHaveLength(2);
    expect(await listedFor(f.gate, { id: 'mallory' })).toEqual([]);
  });

  it('a request view carries the definition the approver sees, or why there is none', async () => {
    const f = makeGateFixture();
    const { requestId } = await f.proposeAndApprove();
    expect((await requestView(f.gate, requestId))?.definition).toMatchObject({
      status: 'pinned',
      definition: { name: 'transfer', description: 'Move money to a recipient' },
    });
    const deploy = await f.gate.propose(f.call({ toolName: 'deploy', arguments: {} }));
    const deployId = deploy.status === 'approval_required' ? deploy.requestId : 'none';
    expect((await requestView(f.gate, deployId))?.definition).toEqual({ status: 'none' });
    const changed = makeGateFixture({
      ledger: f.ledger,
      audit: f.audit,
      tools: { transfer: { execute: () => 0, definition: { name: 'transfer', description: 'changed' } } },
    });
    expect((await requestView(changed.gate, requestId))?.definition).toMatchObject({ status: 'changed', current: { description: 'changed' } });
    const gone = makeGateFixture({ ledger: f.ledger, audit: f.audit, tools: {} });
    expect((await requestView(gone.gate, requestId))?.definition).toEqual({ status: 'unknown_tool' });
  });

  it('each decision is its own signed record, bound to the call; swapped or forged records are caught', async () => {
    const f = makeGateFixture();
    const c = f.call({ toolName: 'deploy', arguments: { service: 'api' } });
    const proposed = await f.gate.propose(c);
    if (proposed.status !== 'approval_required') throw new Error('expected approval');
    await f.gate.approvals.decide({ id: 'alice' }, { requestId: proposed.requestId, decision: 'approve' });
    await f.gate.approvals.decide({ id: 'bob' }, { requestId: proposed.requestId, decision: 'approve', reason: 'ok' });
    const records = await f.audit.read();
    const decisions = records.filter((r) => r.type === 'decision');
    expect(decisions.map((r) => r.actor)).toEqual(['alice', 'bob']);
    expect(checkDecisionEvidence(records, f.keyring)).toEqual([]);
    // bob's signed record moved onto alice's audit record: the signature holds, the binding does not
    const [alice, bob] = decisions as [AuditRecord, AuditRecord];
    const swapped = { ...alice, detail: { ...alice.detail, record: bob.detail?.record ?? null } };
    expect(checkDecisionEvidence([swapped], f.keyring)).toEqual([{ seq: alice.seq, reason: 'signed actor differs from the record' }]);
    const forged = { ...alice, detail: { ...alice.detail, record: 'eyJ4IjoxfQ.eyJ4IjoxfQ.AAAA' } };
    expect(checkDecisionEvidence([forged], f.keyring)[0]?.reason).toMatch(/^malformed/);
    const otherKey = new Keyring([hmacKey('k1', Buffer.alloc(32, 1))]);
    expect(checkDecisionEvidence([alice], otherKey)[0]?.reason).toMatch(/^bad_signature/);
  });

  it('a denied request never runs', async () => {
    const f = makeGateFixture();
    const c = f.call();
    const proposed = await f.gate.propose(c);
    if (proposed.status !== 'approval_required') throw new Error('expected approval');
    await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'deny', reason: 'no' });
    expect(await f.gate.approvals.token(proposed.requestId)).toMatchObject({ ok: false, reason: 'not_approved' });
    expect(await f.gate.dispatch(f.dispatchFor(c))).toMatchObject({ status: 'denied', reason: 'approval_denied' });
    expect(f.executions).toHaveLength(0);
  });

  it('approve-with-edits: the edit is a new call approved on its own; the original never runs', async () => {
    const f = makeGateFixture();
    const c = f.call({ arguments: '{"amount":5000,"to":"alice"}' });
    const proposed = await f.gate.propose(c);
    if (proposed.status !== 'approval_required') throw new Error('expected approval');
    const decided = await f.gate.approvals.decide(FINANCE, {
      requestId: proposed.requestId,
      decision: 'approve',
      editedArguments: { amount: 500, to: 'alice' },
    });
    if (!decided.ok || !decided.editedProposal || !decided.editedRequest) throw new Error('expected an edit');
    expect(decided.request.status).toBe('edited');
    expect(decided.editedProposal.parentProposalId).toBe(proposed.proposalId);
    const issued = await f.gate.approvals.token(decided.editedRequest.requestId);
    if (!issued.ok) throw new Error('expected token');
    expect(await f.gate.dispatch(f.dispatchFor(c, issued.token))).toMatchObject({
      status: 'not_approved',
      reason: 'call_mismatch',
    });
    const edited = { ...c, callId: decided.editedProposal.callId, arguments: undefined };
    const editedRequest = { ...f.dispatchFor(edited, issued.token), proposalId: decided.editedProposal.proposalId };
    expect(await f.gate.dispatch(editedRequest)).toMatchObject({
      status: 'executed',
      result: { transferred: 500 },
    });
    expect(f.executions).toEqual([{ tool: 'transfer', args: { amount: 500, to: 'alice' }, callId: edited.callId }]);
    // The original, without a token, is refused as edited (not denied), naming the edited call.
    const original = await f.gate.dispatch(f.dispatchFor(c));
    expect(original).toMatchObject({ status: 'not_approved', reason: 'approval_edited' });
    expect(original.status === 'not_approved' && original.message).toContain(decided.editedProposal.proposalId);
    // The edited call runs once.
    expect(await f.gate.dispatch(editedRequest)).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(f.executions).toHaveLength(1);
  });

  it('the audit chain links what was proposed, approved and executed by one digest', async () => {
    const f = makeGateFixture();
    const { call, token, proposalId } = await f.proposeAndApprove();
    await f.gate.dispatch(f.dispatchFor(call, token));
    await f.gate.dispatch(f.dispatchFor(call, token)); // a replay, also recorded
    const records = await f.audit.read();
    expect(verifyChain(records)).toMatchObject({ ok: true });
    const about = records.filter((r) => r.proposalId === proposalId);
    // One record per step (format 2): the proposal carries its verdict and request, the decision its token.
    expect(about.map((r) => r.type)).toEqual([
      'proposal',
      'decision',
      'dispatch',
      'result',
      'rejection',
    ]);
    expect(new Set(about.map((r) => r.argsDigest)).size).toBe(1);
    expect(about.at(-1)).toMatchObject({ reason: 'already_consumed' });
    expect(JSON.stringify(records)).not.toContain('alice'); // digests only, no raw arguments
  });

  it('tokens survive a restart: a new gate over the same ledger and secret accepts them', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const restarted = makeGateFixture({ ledger: f.ledger, audit: f.audit });
    restarted.clock.set(f.clock());
    expect(await restarted.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ status: 'executed' });
    expect(new MemoryLedger()).toBeDefined();
  });
});
