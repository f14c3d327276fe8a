import type { AuthorizeOutcome, ProposeOutcome } from '@countersign/core/gate';
import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';
import { sseReader } from '../testing/sse-reader.ts';
import type { ApprovalView } from '../views/request-views.ts';

// Approve-with-edits, as the agent sees it over HTTP: the original request reads
// `edited` (not `denied`) on every agent-facing view, each naming the call to run
// instead, and only that call, with the approver's arguments, runs, once, for this agent.

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const read = async <T>(res: Response): Promise<T> => (await res.json()) as T;

/** An 5000 → 500 edit by fiona of call-1; returns both requests as the decision answered them. */
async function editedTransfer() {
  f = makeServerFixture();
  const original = await f.proposeTransfer({ amount: 5000, to: 'mallory' });
  const res = await f.fiona('POST', '/api/v1/decisions', { requestId: original.requestId, decision: 'approve', editedArguments: { amount: 500, to: 'alice' } });
  expect(res.status).toBe(200);
  const { editedRequest } = await read<{ request: ApprovalView; editedRequest: ApprovalView }>(res);
  const edited = { requestId: editedRequest.requestId, proposalId: editedRequest.call.proposalId, callId: editedRequest.call.callId };
  return { original, edited };
}

async function editedToken(requestId: string): Promise<string> {
  return (await read<{ token: string }>(await f.agent('GET', `/api/v1/requests/${requestId}/token`))).token;
}

describe('the agent follows an edit', () => {
  it('status GET, long-poll, SSE and a repeated propose all say edited and name the edited call (same run and session, new call id)', async () => {
    const { original, edited } = await editedTransfer();
    const view = await read<ApprovalView>(await f.agent('GET', `/api/v1/requests/${original.requestId}`));
    expect(view).toMatchObject({ status: 'edited', edited });
    expect((await read<ApprovalView>(await f.agent('GET', `/api/v1/requests/${original.requestId}?wait=2`))).status).toBe('edited');
    const stream = sseReader(await f.agent('GET', `/api/v1/requests/${original.requestId}/events`));
    expect(JSON.parse((await stream.next())?.data ?? '{}')).toMatchObject({ status: 'edited', edited });
    const again = await read<{ outcomes: ProposeOutcome[] }>(
      await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call-1', name: 'transfer', arguments: { amount: 5000, to: 'mallory' } }])),
    );
    expect(again.outcomes[0]).toMatchObject({ status: 'approval_required', requestId: original.requestId, edited });
    const editedView = await read<ApprovalView>(await f.agent('GET', `/api/v1/requests/${edited.requestId}`));
    expect(editedView.call).toMatchObject({ runId: 'run-1', sessionId: 'session-1', callId: edited.callId, canonicalArguments: '{"amount":500,"to":"alice"}' });
    expect(edited.callId).not.toBe('call-1');
  });

  it('the agent authorizes the edited call with its token: the grant carries the edited arguments', async () => {
    const { edited } = await editedTransfer();
    const token = await editedToken(edited.requestId);
    const outcome = await read<AuthorizeOutcome>(await f.agent('POST', '/api/v1/authorize', { proposalId: edited.proposalId, token, callId: edited.callId }));
    expect(outcome).toMatchObject({ status: 'authorized', grant: { proposalId: edited.proposalId, canonicalArgs: '{"amount":500,"to":"alice"}' } });
  });
});

describe('attacks on an edit', () => {
  it('the ORIGINAL arguments never run: no token for the original, the edited token refused for it, no token → approval_edited', async () => {
    const { original, edited } = await editedTransfer();
    const noToken = await f.agent('GET', `/api/v1/requests/${original.requestId}/token`);
    expect(noToken.status).toBe(409);
    expect(await read(noToken)).toMatchObject({ error: { status: 'edited' } });
    const token = await editedToken(edited.requestId);
    // The edited call's token, presented for the original call (dispatch and authorize).
    expect(await read(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1', token)))).toMatchObject({ status: 'not_approved', reason: 'call_mismatch' });
    expect(await read(await f.agent('POST', '/api/v1/authorize', { proposalId: original.proposalId, token }))).toMatchObject({ status: 'not_approved', reason: 'call_mismatch' });
    const bare = await read<AuthorizeOutcome>(await f.agent('POST', '/api/v1/authorize', { proposalId: original.proposalId }));
    expect(bare).toMatchObject({ status: 'not_approved', reason: 'approval_edited' });
    expect(f.executions).toEqual([]);
    // The token still works for the edited call: nothing above spent it.
    expect(await read(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(edited.callId, token)))).toMatchObject({ status: 'executed', result: { transferred: 500 } });
    expect(f.executions).toEqual([{ tool: 'transfer', args: { amount: 500, to: 'alice' }, callId: edited.callId }]);
  });

  it('the edited call runs once: a second authorize or dispatch is already_consumed', async () => {
    const { edited } = await editedTransfer();
    const token = await editedToken(edited.requestId);
    expect(await read(await f.agent('POST', '/api/v1/authorize', { proposalId: edited.proposalId, token }))).toMatchObject({ status: 'authorized' });
    expect(await read(await f.agent('POST', '/api/v1/authorize', { proposalId: edited.proposalId, token }))).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(await read(await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(edited.callId, token)))).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(f.executions).toEqual([]);
  });

  it('a forged edit from the client means nothing: the server follows its ledger only', async () => {
    const { original, edited } = await editedTransfer();
    const token = await editedToken(edited.requestId);
    // An `editedTo` field on authorize is not part of the API.
    const forged = await f.agent('POST', '/api/v1/authorize', { proposalId: original.proposalId, token, editedTo: edited.proposalId });
    expect(forged.status).toBe(400);
    // The original selected, the edited call's ids and arguments offered as "the call": refused.
    const swapped = await read(await f.agent('POST', '/api/v1/authorize', { proposalId: original.proposalId, token, callId: edited.callId, arguments: { amount: 500, to: 'alice' } }));
    expect(swapped).toMatchObject({ status: 'not_approved' });
    // The edited call selected with the ORIGINAL arguments as the cross-check: refused.
    const mixed = await read(await f.agent('POST', '/api/v1/authorize', { proposalId: edited.proposalId, token, arguments: { amount: 5000, to: 'mallory' } }));
    expect(mixed).toMatchObject({ status: 'not_approved', reason: 'args_mismatch' });
    // A call the agent dresses up as an edit (edit-like call id, the edited arguments) is just another call, pending approval.
    const dressed = await read<{ outcomes: ProposeOutcome[] }>(
      await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: `call-1~edit-forged`, name: 'transfer', arguments: { amount: 5000, to: 'mallory' } }])),
    );
    expect(dressed.outcomes[0]).toMatchObject({ status: 'approval_required' });
    expect(dressed.outcomes[0]).not.toHaveProperty('edited');
    // The original still points at the approver's edit.
    expect(await read(await f.agent('GET', `/api/v1/requests/${original.requestId}`))).toMatchObject({ edited: { proposalId: edited.proposalId } });
    expect(f.executions).toEqual([]);
  });

  it('another agent cannot pick up the edited call: its request, token and authorization are 404s', async () => {
    const { original, edited } = await editedTransfer();
    for (const path of [`/api/v1/requests/${original.requestId}`, `/api/v1/requests/${edited.requestId}`, `/api/v1/requests/${edited.requestId}/token`]) {
      expect((await f.rival('GET', path)).status).toBe(404);
    }
    const token = await editedToken(edited.requestId);
    expect((await f.rival('POST', '/api/v1/authorize', { proposalId: edited.proposalId, token })).status).toBe(404);
    expect((await f.rival('POST', '/api/v1/dispatch', { proposalId: edited.proposalId, token })).status).toBe(404);
    expect(f.executions).toEqual([]);
    // The owner's token is still unspent.
    expect(await read(await f.agent('POST', '/api/v1/authorize', { proposalId: edited.proposalId, token }))).toMatchObject({ status: 'authorized' });
  });
});
