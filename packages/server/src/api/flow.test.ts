import type { AuditRecord } from '@countersign/core/audit';
import type { DispatchOutcome } from '@countersign/core/gate';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChainStatus } from '../audit/chain-status.ts';
import { makeServerFixture, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';
import type { ApprovalView } from '../views/request-views.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const read = async <T>(res: Response): Promise<T> => (await res.json()) as T;
type AuditBody = { records: AuditRecord[]; chain: ChainStatus; nextAfterSeq: number | null };

describe('propose → list → view → decide → token → dispatch', () => {
  it('executes exactly the call the approver was shown, once', async () => {
    f = makeServerFixture();
    const proposed = await f.agent(
      'POST',
      '/api/v1/proposals',
      f.proposalBody([
        { id: 'call-1', name: 'transfer', arguments: '{"to":"alice","amount":500}' },
        { id: 'call-2', name: 'get_balance', arguments: {} },
        { id: 'call-3', name: 'delete_repo', arguments: {} },
      ]),
    );
    expect(proposed.status).toBe(200);
    const { outcomes } = await read<{ outcomes: Array<{ status: string; callId: string; requestId?: string; reason?: string }> }>(proposed);
    expect(outcomes.map((o) => [o.callId, o.status])).toEqual([
      ['call-1', 'approval_required'],
      ['call-2', 'allowed'],
      ['call-3', 'denied'],
    ]);
    // The agent runtime is inside the trust boundary: it gets the reason.
    expect(outcomes[2]?.reason).toBe('policy_deny');
    const requestId = outcomes[0]!.requestId!;

    const list = await read<{ approvals: ApprovalView[] }>(await f.fiona('GET', '/api/v1/approvals'));
    expect(list.approvals.map((a) => a.requestId)).toEqual([requestId]);

    const shown = await read<ApprovalView>(await f.fiona('GET', `/api/v1/approvals/${requestId}`));
    expect(shown).toMatchObject({
      requestId,
      status: 'pending',
      approvals: 0,
      requiredApprovals: 1,
      ruleId: 'transfers',
      decisions: [],
      call: {
        toolName: 'transfer',
        definitionDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        canonicalArguments: '{"amount":500,"to":"alice"}',
        argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        principal: 'user:42',
        agent: 'runtime',
        sessionId: 'session-1',
        runId: 'run-1',
        callId: 'call-1',
        responseRef: 'resp-1',
      },
    });
    expect(shown.expiresAt - shown.createdAt).toBe(600_000);

    const pendingToken = await f.agent('GET', `/api/v1/requests/${requestId}/token`);
    expect(pendingToken.status).toBe(409);
    expect(await pendingToken.json()).toEqual({ error: { code: 'not_approved', message: expect.any(String), status: 'pending' } });

    const decided = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', reason: 'invoice 17' });
    expect(decided.status).toBe(200);
    expect((await read<{ request: ApprovalView }>(decided)).request).toMatchObject({ status: 'approved', approvals: 1 });

    const status = await read<ApprovalView>(await f.agent('GET', `/api/v1/requests/${requestId}`));
    expect(status).toMatchObject({ status: 'approved', decisions: [{ approver: 'fiona', decision: 'approve', reason: 'invoice 17' }] });

    const issued = await read<{ token: string }>(await f.agent('GET', `/api/v1/requests/${requestId}/token`));
    const dispatched = await read<DispatchOutcome>(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1', issued.token)));
    expect(dispatched).toMatchObject({ status: 'executed', result: { transferred: 500 } });
    expect(f.executions).toEqual([{ tool: 'transfer', args: JSON.parse(shown.call.canonicalArguments), callId: 'call-1' }]);

    const again = await read<DispatchOutcome>(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1', issued.token)));
    expect(again).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(f.executions).toHaveLength(1);

    // What was displayed, what was approved and what ran carry the same digest; the chain verifies.
    const audit = await read<AuditBody>(await f.fiona('GET', '/api/v1/audit?limit=500'));
    expect(audit.chain).toMatchObject({ ok: true });
    const about = audit.records.filter((r) => r.requestId === requestId || r.callId === 'call-1');
    const decision = about.find((r) => r.type === 'decision');
    const dispatch = about.find((r) => r.type === 'dispatch');
    expect(decision).toMatchObject({ actor: 'fiona', argsDigest: shown.call.argsDigest });
    expect(dispatch).toMatchObject({ argsDigest: shown.call.argsDigest });
  });

  it('an allowed call dispatches without approval; a denied one never runs', async () => {
    f = makeServerFixture();
    await f.agent(
      'POST',
      '/api/v1/proposals',
      f.proposalBody([
        { id: 'call-1', name: 'get_balance', arguments: {} },
        { id: 'call-2', name: 'delete_repo', arguments: {} },
      ]),
    );
    expect(await read(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1')))).toMatchObject({ status: 'executed' });
    expect(await read(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-2')))).toMatchObject({ status: 'denied', reason: 'policy_deny' });
    expect(f.executions.map((e) => e.tool)).toEqual(['get_balance']);
  });

  it('a deny closes the request: no token, no execution', async () => {
    f = makeServerFixture();
    const { requestId, callId } = await f.proposeTransfer();
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny', reason: 'not expected' })).status).toBe(200);
    const token = await f.agent('GET', `/api/v1/requests/${requestId}/token`);
    expect(token.status).toBe(409);
    expect(((await token.json()) as { error: { status: string } }).error.status).toBe('denied');
    const dispatched = await read<DispatchOutcome>(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId)));
    expect(dispatched.status).not.toBe('executed');
    expect(f.executions).toHaveLength(0);
  });
});

describe('approve with edits', () => {
  it('records the edit as a new linked proposal; only the edited call runs, with the digest the approver approved', async () => {
    f = makeServerFixture();
    const { requestId, argsDigest: originalDigest } = await f.proposeTransfer({ amount: 5000, to: 'mallory' });
    const res = await f.fiona('POST', '/api/v1/decisions', {
      requestId,
      decision: 'approve',
      reason: 'amount and payee corrected',
      editedArguments: '{"to":"alice","amount":500}',
    });
    expect(res.status).toBe(200);
    const { request, editedRequest } = await read<{ request: ApprovalView; editedRequest: ApprovalView }>(res);
    expect(request).toMatchObject({ status: 'edited', edited: { requestId: editedRequest.requestId } });
    expect(editedRequest).toMatchObject({
      status: 'approved',
      call: { canonicalArguments: '{"amount":500,"to":"alice"}', parentProposalId: request.call.proposalId, principal: 'user:42' },
    });
    expect(editedRequest.call.argsDigest).not.toBe(originalDigest);

    // The waiting agent learns where its call went.
    const status = await read<ApprovalView>(await f.agent('GET', `/api/v1/requests/${requestId}`));
    expect(status.edited).toEqual({
      requestId: editedRequest.requestId,
      proposalId: editedRequest.call.proposalId,
      callId: editedRequest.call.callId,
      argsDigest: editedRequest.call.argsDigest,
    });

    const original = await read<DispatchOutcome>(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1')));
    expect(original.status).not.toBe('executed');
    const { token } = await read<{ token: string }>(await f.agent('GET', `/api/v1/requests/${editedRequest.requestId}/token`));
    const ran = await read<DispatchOutcome>(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(editedRequest.call.callId, token)));
    expect(ran).toMatchObject({ status: 'executed', result: { transferred: 500 } });
    expect(f.executions).toEqual([{ tool: 'transfer', args: { amount: 500, to: 'alice' }, callId: editedRequest.call.callId }]);

    const { records } = await read<AuditBody>(await f.fiona('GET', '/api/v1/audit?limit=500'));
    const approvedEdit = records.find((r) => r.type === 'decision' && r.requestId === editedRequest.requestId);
    const dispatch = records.find((r) => r.type === 'dispatch');
    expect(approvedEdit?.argsDigest).toBe(editedRequest.call.argsDigest);
    expect(dispatch?.argsDigest).toBe(editedRequest.call.argsDigest);
    const closedOriginal = records.find((r) => r.type === 'decision' && r.requestId === requestId);
    expect(closedOriginal).toMatchObject({ argsDigest: originalDigest, detail: { editedProposalId: editedRequest.call.proposalId } });
  });

  it('an "edit" that changes nothing is a plain approval of the recorded call', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const res = await read<{ request: ApprovalView; editedRequest?: ApprovalView }>(
      await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: { to: 'alice', amount: 500 } }),
    );
    expect(res.request.status).toBe('approved');
    expect(res.editedRequest).toBeUndefined();
  });
});

describe('n-of-m progress', () => {
  it('shows k of n until enough distinct approvers agree', async () => {
    f = makeServerFixture({
      auth: {
        ...TEST_AUTH,
        approvers: [...TEST_AUTH.approvers, { id: 'alice', roles: [], token: 'alice-token-xxxxxxxx' }, { id: 'bob', roles: [], token: 'bob-token-yyyyyyyy' }],
      },
    });
    const proposed = await read<{ outcomes: Array<{ requestId: string }> }>(
      await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'd-1', name: 'deploy', arguments: { service: 'api' } }])),
    );
    const requestId = proposed.outcomes[0]!.requestId;
    const view = async () => read<ApprovalView>(await f.send('GET', `/api/v1/approvals/${requestId}`, 'alice-token-xxxxxxxx'));
    expect(await view()).toMatchObject({ approvals: 0, requiredApprovals: 2, status: 'pending' });
    await f.send('POST', '/api/v1/decisions', 'alice-token-xxxxxxxx', { requestId, decision: 'approve' });
    expect(await view()).toMatchObject({ approvals: 1, requiredApprovals: 2, status: 'pending' });
    const twice = await f.send('POST', '/api/v1/decisions', 'alice-token-xxxxxxxx', { requestId, decision: 'approve' });
    expect(twice.status).toBe(409);
    expect(((await twice.json()) as { error: { code: string } }).error.code).toBe('duplicate_approver');
    await f.send('POST', '/api/v1/decisions', 'bob-token-yyyyyyyy', { requestId, decision: 'approve' });
    expect(await view()).toMatchObject({ approvals: 2, requiredApprovals: 2, status: 'approved' });
    // fiona is not among the deploy approvers: the request does not exist for her.
    expect((await f.fiona('GET', `/api/v1/approvals/${requestId}`)).status).toBe(404);
  });
});
