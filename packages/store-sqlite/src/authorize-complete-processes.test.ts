import { join } from 'node:path';
import type { AuthorizeOutcome, CompleteOutcome } from '@countersign/core';
import { KIT_AGENTS, KIT_APPROVER, KIT_PRINCIPAL } from '@countersign/core/testing';
import { runChildren } from '@countersign/core/testing/children';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kitGate } from './testing/kit-gate.ts';
import { tempStore } from './testing/temp-store.ts';

const CHILD = join(import.meta.dirname, 'testing', 'gate-child.ts');

describe('authorize in one process, complete in another, on one SQLite file', () => {
  let t: ReturnType<typeof tempStore>;
  beforeAll(() => {
    t = tempStore();
  });
  afterAll(() => t.cleanup());

  it('the call reads dispatched between the two, succeeded after; the grant is spent once', async () => {
    const port = kitGate(t.store).port(KIT_AGENTS.a);
    const gate = kitGate(t.store);
    const [proposed] = await port.propose({
      runId: 'run-two-processes',
      sessionId: 's-1',
      principal: KIT_PRINCIPAL,
      toolCalls: [{ id: 'call-1', name: 'kit_transfer', arguments: { amount: 500, to: 'alice' } }],
    });
    if (proposed?.status !== 'approval_required') throw new Error(`expected approval_required, got ${JSON.stringify(proposed)}`);
    expect(await gate.approvals.decide(KIT_APPROVER, { requestId: proposed.requestId, decision: 'approve' })).toMatchObject({ ok: true });
    const issued = await port.token(proposed.requestId);
    if (!issued.ok) throw new Error(issued.message);
    expect(await port.callStatus(proposed.proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });

    const request = { proposalId: proposed.proposalId, token: issued.token, toolName: 'kit_transfer', arguments: { to: 'alice', amount: 500 } };
    const [authorized] = (await runChildren(CHILD, [['authorize', t.path, JSON.stringify(request)]])) as [AuthorizeOutcome];
    if (authorized.status !== 'authorized') throw new Error(`expected authorized, got ${JSON.stringify(authorized)}`);
    expect(authorized.grant).toMatchObject({ proposalId: proposed.proposalId, canonicalArgs: '{"amount":500,"to":"alice"}', requestId: proposed.requestId });
    // Between the processes: the approval is spent, no result yet ("ran, result unknown").
    expect(await port.callStatus(proposed.proposalId)).toMatchObject({
      ok: true,
      call: { state: 'dispatched', request: { status: 'consumed' } },
    });
    expect(await port.authorize(request)).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });

    const completion = { status: 'succeeded', result: { transferred: 500 } };
    const [completed] = (await runChildren(CHILD, [['complete', t.path, JSON.stringify(authorized.grant), JSON.stringify(completion)]])) as [CompleteOutcome];
    expect(completed).toMatchObject({ ok: true, duplicate: false });
    expect(await port.callStatus(proposed.proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    // A retried complete (here from this process) is a duplicate; a different result a conflict.
    expect(await port.complete(authorized.grant, { status: 'succeeded', result: { transferred: 500 } })).toMatchObject({ ok: true, duplicate: true });
    expect(await port.complete(authorized.grant, { status: 'failed', error: 'no' })).toMatchObject({ ok: false, reason: 'result_conflict' });
  });
});
