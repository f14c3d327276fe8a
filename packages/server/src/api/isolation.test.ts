import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';
import { sseReader } from '../testing/sse-reader.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const json = async (res: Response) => ({ status: res.status, body: await res.json() });

/** What an agent gets for an id nobody has: every answer about another agent's run must equal it. */
async function unknownAnswers(path: (id: string) => string) {
  return json(await f.rival('GET', path('no-such-request')));
}

describe("two agents on one server: B sees nothing of A's runs", () => {
  it("B cannot read A's request, wait on it, stream it, or fetch its token: 404, exactly like an unknown id", async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const paths = [
      (id: string) => `/api/v1/requests/${id}`,
      (id: string) => `/api/v1/requests/${id}?wait=1`,
      (id: string) => `/api/v1/requests/${id}/events`,
    ];
    for (const path of paths) {
      const stolen = await json(await f.rival('GET', path(requestId)));
      expect(stolen).toEqual(await unknownAnswers(path));
      expect(stolen.status).toBe(404);
    }
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(200);
    const tokenPath = (id: string) => `/api/v1/requests/${id}/token`;
    const stolenToken = await json(await f.rival('GET', tokenPath(requestId)));
    expect(stolenToken).toEqual(await unknownAnswers(tokenPath));
    expect(stolenToken.status).toBe(404);
    // A still reads and fetches its own.
    expect((await f.agent('GET', tokenPath(requestId))).status).toBe(200);
    const stream = sseReader(await f.agent('GET', `/api/v1/requests/${requestId}/events`));
    expect(JSON.parse((await stream.next())?.data ?? '{}')).toMatchObject({ status: 'approved' });
  });

  it("B cannot dispatch A's approved call (even holding A's token): 404 like an unknown call, nothing runs; A's approval still works", async () => {
    f = makeServerFixture();
    const { requestId, proposalId } = await f.proposeTransfer();
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    const { token } = (await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string };
    const body = await f.dispatchBody('call-1', token);
    const stolen = await json(await f.rival('POST', '/api/v1/dispatch', body));
    const unknown = await json(await f.rival('POST', '/api/v1/dispatch', { ...body, proposalId: 'no-such-proposal' }));
    expect(stolen).toEqual(unknown);
    expect(stolen).toEqual({ status: 404, body: { error: { code: 'not_found', message: expect.any(String) } } });
    expect((await f.rival('POST', '/api/v1/dispatch', { proposalId })).status).toBe(404);
    expect(f.executions).toHaveLength(0);
    const audited = (await f.audit.read()).filter((r) => r.type === 'rejection' && r.detail?.agent === 'rival');
    expect(audited.length).toBeGreaterThanOrEqual(2);
    expect(await json(await f.agent('POST', '/api/v1/dispatch', body))).toMatchObject({ status: 200, body: { status: 'executed' } });
  });

  it("B re-proposing A's exact call in A's run gets a 404, not A's request id", async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const res = await f.rival('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call-1', name: 'transfer', arguments: { amount: 500, to: 'alice' } }]));
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(requestId);
  });

  it("B squatting A's run and call id first: A is refused plainly (404, new run needed) and B's arguments never run as A's", async () => {
    f = makeServerFixture();
    const squat = await f.rival('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call-1', name: 'transfer', arguments: { amount: 9000, to: 'mallory' } }]));
    const squatted = ((await squat.json()) as { outcomes: Array<{ proposalId: string; requestId: string }> }).outcomes[0]!;
    const honest = await json(await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call-1', name: 'transfer', arguments: { amount: 500, to: 'alice' } }])));
    expect(honest).toEqual({ status: 404, body: { error: { code: 'not_found', message: expect.stringContaining('use a new run id') } } });
    // Even knowing B's ids, A cannot reach B's call: it is not A's.
    expect((await f.agent('POST', '/api/v1/dispatch', { proposalId: squatted.proposalId })).status).toBe(404);
    expect((await f.agent('GET', `/api/v1/requests/${squatted.requestId}`)).status).toBe(404);
    // Approved by a person who thought it was A's call, B's arguments still run only as B's, under B's identity.
    await f.fiona('POST', '/api/v1/decisions', { requestId: squatted.requestId, decision: 'approve' });
    expect((await f.agent('GET', `/api/v1/requests/${squatted.requestId}/token`)).status).toBe(404);
    expect(f.executions).toHaveLength(0);
    // A starts a new run and proceeds.
    const fresh = await json(await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call-1', name: 'transfer', arguments: { amount: 500, to: 'alice' } }], 'run-2')));
    expect(fresh).toMatchObject({ status: 200, body: { outcomes: [{ status: 'approval_required' }] } });
  });
});

describe('agents limited to principals (auth file `principals`)', () => {
  const body = (principal: string, runId: string) => ({
    runId,
    sessionId: 'session-1',
    principal,
    toolCalls: [{ id: 'call-1', name: 'read_file', arguments: {} }],
  });

  it('a proposal for a principal the agent may not act for is refused (403) and nothing is recorded', async () => {
    f = makeServerFixture();
    for (const [i, principal] of ['user:42', 'user:70', 'xteam:ops'].entries()) {
      const res = await json(await f.scoped('POST', '/api/v1/proposals', body(principal, `run-x${i}`)));
      expect(res).toEqual({ status: 403, body: { error: { code: 'forbidden', message: expect.any(String) } } });
      expect(await f.ledger.findProposalByCall(`run-x${i}`, 'call-1')).toBeUndefined();
    }
    expect((await f.audit.read()).filter((r) => r.reason === 'principal_not_allowed')).toHaveLength(3);
    for (const [i, principal] of ['team:ops', 'user:7'].entries()) {
      const res = await json(await f.scoped('POST', '/api/v1/proposals', body(principal, `run-ok${i}`)));
      expect(res).toMatchObject({ status: 200, body: { outcomes: [{ status: 'allowed' }] } });
    }
    // Agents without a list act for anyone.
    expect((await f.agent('POST', '/api/v1/proposals', body('user:42', 'run-any'))).status).toBe(200);
  });
});
