import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { ConsumeResult, LedgerStore } from '../../ledger/types.ts';
import { makeGateFixture } from '../../testing/gate-fixture.ts';
import { INTENT_TASK, scriptedMatcher } from '../../testing/intent-conformance.ts';
import { withOverrides } from '../attacks.test-helper.ts';
import type { Grant } from './grant.ts';

// Authorize of an allowed call this gate's propose just recorded checks the call as
// recorded instead of reading it back (recorded-calls.ts), and complete of the grant it
// issued, sent back as JSON, checks it against the grant as issued (issued-grants.ts).
// These tests attack both shortcuts: the store's consume and result writes still decide,
// and anything the gate did not just write itself takes the ledger read.

const SMALL = '{"amount":5,"to":"alice"}';

/** A fixture whose ledger counts the call reads (getProposalWithRequest) and can edit what consume returns. */
function countingFixture(shared?: { ledger: LedgerStore; audit: MemoryAuditLog }) {
  const audit = shared?.audit ?? new MemoryAuditLog();
  const inner = shared?.ledger ?? new MemoryLedger({ audit });
  const reads = { count: 0 };
  const consumed = { edit: (result: ConsumeResult) => result };
  const ledger = withOverrides<LedgerStore>(inner, {
    getProposalWithRequest: async (proposalId: string) => {
      reads.count++;
      return inner.getProposalWithRequest(proposalId);
    },
    consume: async (...args: Parameters<LedgerStore['consume']>) => consumed.edit(await inner.consume(...args)),
  });
  const f = makeGateFixture({ ledger, audit });
  return { f, reads, consumed, inner, audit };
}

async function proposeSmall(f: ReturnType<typeof makeGateFixture>, agent?: { id: string }) {
  const call = f.call({ arguments: SMALL });
  const proposed = await f.gate.propose(call, agent);
  if (proposed.status !== 'allowed') throw new Error(`expected allowed, got ${JSON.stringify(proposed)}`);
  return { call, proposalId: proposed.proposalId };
}

const recordsOf = async (audit: MemoryAuditLog, proposalId: string) => (await audit.read()).filter((r) => r.proposalId === proposalId).map((r) => r.type);

describe('authorize of an allowed call this gate just recorded', () => {
  it('consumes without reading the call back; complete of its grant as JSON records the result without a read either', async () => {
    const { f, reads, audit } = countingFixture();
    const { proposalId } = await proposeSmall(f);
    const authorized = await f.gate.authorize({ proposalId });
    expect(authorized).toMatchObject({ status: 'authorized', grant: { proposalId, canonicalArgs: SMALL } });
    if (authorized.status !== 'authorized') return;
    const overHttp = JSON.parse(JSON.stringify(authorized.grant)) as Grant;
    expect(await f.gate.complete(overHttp, { status: 'succeeded', result: { ok: true } })).toMatchObject({ ok: true, duplicate: false });
    expect(reads.count).toBe(0);
    expect(await recordsOf(audit, proposalId)).toEqual(['proposal', 'dispatch', 'result']);
  });

  it('is held once: a second authorize reads the ledger and is refused already_consumed', async () => {
    const { f, reads } = countingFixture();
    const { proposalId } = await proposeSmall(f);
    expect(await f.gate.authorize({ proposalId })).toMatchObject({ status: 'authorized' });
    expect(await f.gate.authorize({ proposalId })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(reads.count).toBe(1);
  });

  it('another agent naming the call gets unknown_call, and the agent that proposed it still authorizes it', async () => {
    const { f } = countingFixture();
    const { proposalId } = await proposeSmall(f);
    expect(await f.gate.authorize({ proposalId }, { id: 'rival' })).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    expect(await f.gate.authorize({ proposalId })).toMatchObject({ status: 'authorized' });
  });

  it('cross-checks in the request are made on the held call (run, call, tool, arguments)', async () => {
    const mismatches: Array<[Record<string, unknown>, string]> = [
      [{ runId: 'run-other' }, 'run_mismatch'],
      [{ callId: 'call-other' }, 'call_mismatch'],
      [{ toolName: 'deploy' }, 'tool_mismatch'],
      [{ arguments: '{"amount":6,"to":"alice"}' }, 'args_mismatch'],
      [{ principal: 'user:mallory' }, 'principal_mismatch'],
    ];
    for (const [fields, reason] of mismatches) {
      const { f } = countingFixture();
      const { proposalId } = await proposeSmall(f);
      expect(await f.gate.authorize({ proposalId, ...fields }), reason).toMatchObject({ status: 'not_approved', reason });
      expect(await f.gate.callStatus(proposalId), reason).toMatchObject({ ok: true, call: { state: 'proposed' } });
    }
  });

  it('another gate on the same ledger consumed it first: the consume refuses it (already_consumed), nothing runs twice', async () => {
    const one = countingFixture();
    const { proposalId } = await proposeSmall(one.f);
    const other = countingFixture({ ledger: one.inner, audit: one.audit });
    expect(await other.f.gate.dispatch({ proposalId })).toMatchObject({ status: 'executed' });
    expect(await one.f.gate.dispatch({ proposalId })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(one.f.executions.length + other.f.executions.length).toBe(1);
  });

  it('the stored row edited since it was recorded: the consume returns another call, refused ledger_integrity, never run', async () => {
    const { f, consumed } = countingFixture();
    const { proposalId } = await proposeSmall(f);
    consumed.edit = (result) => (result.ok ? { ...result, proposal: { ...result.proposal, canonicalArgs: '{"amount":5000,"to":"mallory"}' } } : result);
    expect(await f.gate.dispatch({ proposalId })).toMatchObject({ status: 'not_approved', reason: 'ledger_integrity' });
    expect(f.executions).toHaveLength(0);
  });

  it('a call this gate did not record is read; a consume that returns another call than the one read is refused ledger_integrity too, never run', async () => {
    const one = countingFixture();
    const { proposalId } = await proposeSmall(one.f);
    const other = countingFixture({ ledger: one.inner, audit: one.audit });
    other.consumed.edit = (result) => (result.ok ? { ...result, proposal: { ...result.proposal, canonicalArgs: '{"amount":5000,"to":"mallory"}' } } : result);
    expect(await other.f.gate.dispatch({ proposalId })).toMatchObject({ status: 'not_approved', reason: 'ledger_integrity' });
    expect(other.reads.count).toBe(1);
    expect(one.f.executions.length + other.f.executions.length).toBe(0);
  });

  it('with an intent stage nothing is held: another replica proposing the same call again may have routed it to a person since', async () => {
    const audit = new MemoryAuditLog();
    const ledger = new MemoryLedger({ audit });
    const matching = scriptedMatcher(() => ({ decision: 'match', score: 1, matcher: 'scripted' })).matcher;
    const unsure = scriptedMatcher(() => ({ decision: 'uncertain', score: 0.5, matcher: 'scripted' })).matcher;
    const replicaA = makeGateFixture({ ledger, audit, intent: { matcher: matching } });
    const replicaB = makeGateFixture({ ledger, audit, intent: { matcher: unsure, uncertain: 'approve' } });
    const call = replicaA.call({ arguments: SMALL, task: INTENT_TASK });
    const first = await replicaA.gate.propose(call);
    expect(first).toMatchObject({ status: 'allowed' });
    expect(await replicaB.gate.propose(call)).toMatchObject({ status: 'approval_required' });
    if (first.status !== 'allowed') return;
    expect(await replicaA.gate.dispatch({ proposalId: first.proposalId })).toMatchObject({ status: 'approval_required' });
    expect(replicaA.executions.length + replicaB.executions.length).toBe(0);
  });

  it('a call proposed again is read from the ledger from then on', async () => {
    const { f, reads } = countingFixture();
    const { call, proposalId } = await proposeSmall(f);
    expect(await f.gate.propose(call)).toMatchObject({ status: 'allowed', proposalId });
    expect(await f.gate.authorize({ proposalId })).toMatchObject({ status: 'authorized' });
    expect(reads.count).toBe(1);
  });

  it('a call that needs approval is not held: authorize without a token reads it and is answered approval_required', async () => {
    const { f, reads } = countingFixture();
    const proposed = await f.gate.propose(f.call());
    expect(proposed.status).toBe('approval_required');
    if (proposed.status !== 'approval_required') return;
    expect(await f.gate.authorize({ proposalId: proposed.proposalId })).toMatchObject({ status: 'approval_required' });
    expect(reads.count).toBe(1);
  });

  it('a JSON grant edited in any field is refused grant_mismatch and records nothing', async () => {
    const edits: Array<[string, (g: Grant) => void]> = [
      ['canonicalArgs', (g) => (g.canonicalArgs = '{"amount":5000,"to":"mallory"}')],
      ['argsDigest', (g) => (g.argsDigest = '0'.repeat(64))],
      ['toolName', (g) => (g.toolName = 'deploy')],
      ['authorizedAt', (g) => (g.authorizedAt += 1)],
      ['approvers', (g) => (g.approvers = ['mallory'])],
    ];
    for (const [field, edit] of edits) {
      const { f, audit } = countingFixture();
      const { proposalId } = await proposeSmall(f);
      const authorized = await f.gate.authorize({ proposalId });
      if (authorized.status !== 'authorized') throw new Error(field);
      const overHttp = JSON.parse(JSON.stringify(authorized.grant)) as Grant;
      edit(overHttp);
      expect(await f.gate.complete(overHttp, { status: 'succeeded', result: 1 }), field).toMatchObject({ ok: false, reason: 'grant_mismatch' });
      expect(await recordsOf(audit, proposalId), field).toEqual(['proposal', 'dispatch', 'rejection']);
      expect(await f.gate.callStatus(proposalId), field).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    }
  });
});
