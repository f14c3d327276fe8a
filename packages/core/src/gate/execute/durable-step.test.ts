import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import type { AuditEvent } from '../../audit/types.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import { makeGateFixture } from '../../testing/gate-fixture.ts';

/** The memory store's audit log, with an outage switch (the audit part of a write fails). */
class FlakyAuditLog extends MemoryAuditLog {
  failing = false;
  override prepare(events: readonly AuditEvent[]): { commit: () => ReturnType<ReturnType<MemoryAuditLog['prepare']>['commit']> } {
    if (this.failing && events.length > 0) throw new Error('audit store down');
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
});
