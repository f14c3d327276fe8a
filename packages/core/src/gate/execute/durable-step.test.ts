import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import type { AuditEvent } from '../../audit/types.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import { FINANCE, makeGateFixture } from '../../testing/gate-fixture.ts';
import { providerOutputDigest } from '../relay/provider-output.ts';

/** The memory store's audit log, with an outage switch (the audit part of a write fails; given a type, only a write carrying a record of that type). */
class FlakyAuditLog extends MemoryAuditLog {
  failing: boolean | AuditEvent['type'] = false;
  override prepare(events: readonly AuditEvent[]): { commit: () => ReturnType<ReturnType<MemoryAuditLog['prepare']>['commit']> } {
    const hit = typeof this.failing === 'string' ? events.some((e) => e.type === this.failing) : this.failing;
    if (hit && events.length > 0) throw new Error('audit store down');
    return super.prepare(events);
  }
}

function fixture() {
  const audit = new FlakyAuditLog();
  return { ...makeGateFixture({ ledger: new MemoryLedger({ audit }), audit }), flaky: audit };
}

describe('one durable write per step (ledger and audit in one store)', () => {
  it('an approval is never spent without its dispatch record: an audit outage leaves it usable, and nothing runs', async () => {
    const f = fixture();
    const { call, token } = await f.proposeAndApprove();
    f.flaky.failing = true;
    const refused = await f.gate.dispatch(f.dispatchFor(call, token));
    expect(refused).toMatchObject({ status: 'not_approved', reason: 'store_unavailable' });
    expect(f.executions).toHaveLength(0);
    // Two steps would have spent it (consume committed, record lost): the retry would read already_consumed.
    f.flaky.failing = false;
    const ran = await f.gate.dispatch(f.dispatchFor(call, token));
    expect(ran.status).toBe('executed');
    expect(f.executions).toHaveLength(1);
    const types = f.flaky.records().map((r) => r.type);
    expect(types.filter((t) => t === 'dispatch')).toHaveLength(1);
  });

  it('a proposal is never recorded without its records; a decision never takes effect without its signed record', async () => {
    const f = fixture();
    f.flaky.failing = true;
    const modelCall = f.call();
    expect(await f.gate.propose(modelCall)).toMatchObject({ status: 'rejected', reason: 'store_unavailable' });
    expect(await f.ledger.findProposalByCall(modelCall.runId, modelCall.callId)).toBeUndefined();
    f.flaky.failing = false;
    const proposed = await f.gate.propose(modelCall);
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    f.flaky.failing = true;
    const decided = await f.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: proposed.requestId, decision: 'approve' });
    // Not "approved, record missing" (auditRecorded: false): the decision did not happen.
    expect(decided).toMatchObject({ ok: false, reason: 'store_unavailable' });
    expect((await f.ledger.getApprovalRequest(proposed.requestId))?.status).toBe('pending');
  });

  it('a result is never stored without its record: complete can be retried', async () => {
    const f = fixture();
    const modelCall = f.call({ arguments: '{"amount":5,"to":"alice"}' });
    expect((await f.gate.propose(modelCall)).status).toBe('allowed');
    const authorized = await f.gate.authorize(f.dispatchFor(modelCall));
    if (authorized.status !== 'authorized') throw new Error(authorized.status);
    f.flaky.failing = true;
    expect(await f.gate.complete(authorized.grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'store_unavailable' });
    f.flaky.failing = false;
    // Not a duplicate: the first attempt stored nothing.
    expect(await f.gate.complete(authorized.grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
  });

  it('an edit never takes effect without its records: an audit outage leaves the original pending and no edited call', async () => {
    const f = fixture();
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const before = f.flaky.records().length;
    f.flaky.failing = true;
    const edit = { requestId: proposed.requestId, decision: 'approve' as const, editedArguments: { amount: 400, to: 'alice' } };
    // Not "edited, records missing" (auditRecorded: false): the edit did not happen.
    expect(await f.gate.approvals.decide(FINANCE, edit)).toMatchObject({ ok: false, reason: 'store_unavailable' });
    expect(await f.ledger.getApprovalRequest(proposed.requestId)).toMatchObject({ status: 'pending', decisions: [] });
    expect(await f.ledger.listApprovalRequests({}, f.clock())).toHaveLength(1);
    expect(f.flaky.records()).toHaveLength(before);
    f.flaky.failing = false;
    const edited = await f.gate.approvals.decide(FINANCE, edit);
    expect(edited).toMatchObject({ ok: true, request: { status: 'edited' }, editedRequest: { status: 'approved' } });
    expect(edited).not.toHaveProperty('auditRecorded');
    expect(f.flaky.records().slice(before).map((r) => r.type)).toEqual(['proposal', 'decision', 'decision']);
  });

  it("a provider's output is never recorded without its records, nor its call marked run: the report can be retried", async () => {
    const f = fixture();
    const run = { runId: 'run-hosted', sessionId: 'session-1', principal: 'user:42' };
    await f.gate.proposeResponse({ ...run, toolCalls: [{ id: 'srv_1', name: 'read_file', arguments: { path: '/search' }, executedBy: 'provider' }] });
    const report = { runId: run.runId, callId: 'srv_1', outputDigest: providerOutputDigest({ results: ['a'] })! };
    // Only the result record fails: marking the call run and storing its output are one write, so neither stands.
    f.flaky.failing = 'result';
    expect(await f.gate.recordProviderOutput(report)).toMatchObject({ ok: false, reason: 'store_unavailable' });
    const call = await f.ledger.findProposalByCall(run.runId, 'srv_1');
    expect(call?.state).toBe('proposed');
    expect(call?.result).toBeUndefined();
    f.flaky.failing = false;
    // Not a duplicate: the first attempt stored nothing.
    expect(await f.gate.recordProviderOutput(report)).toEqual({ ok: true, duplicate: false });
    expect(f.flaky.records().filter((r) => r.callId === 'srv_1').map((r) => r.type)).toEqual(['proposal', 'dispatch', 'result']);
  });
});
