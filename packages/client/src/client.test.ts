import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SCOPED_TOKEN } from '../../server/src/testing/server-fixture.ts';
import { type Loopback, loopbackServer, response } from './loopback.test-helper.ts';

let server: Loopback;
afterEach(async () => {
  await server.close();
});

const later = (ms: number, fn: () => unknown) => new Promise((resolve) => setTimeout(() => resolve(fn()), ms));

describe('@countersign/client against a real server over loopback', () => {
  it('propose → wait → token → authorize → run locally → complete → callStatus', async () => {
    server = await loopbackServer();
    const client = server.client();
    const [proposed] = await client.propose(response([{ id: 'call-1', name: 'transfer', arguments: '{"to":"alice","amount":500}' }]));
    if (proposed?.status !== 'approval_required') throw new Error(`expected approval_required, got ${JSON.stringify(proposed)}`);

    const [waited] = await Promise.all([
      client.waitForDecision(proposed.requestId, { timeoutMs: 10_000 }),
      later(100, () => server.fixture.fiona('POST', '/api/v1/decisions', { requestId: proposed.requestId, decision: 'approve' })),
    ]);
    expect(waited).toMatchObject({ ok: true, status: 'approved', requestId: proposed.requestId });

    const token = await client.token(proposed.requestId);
    if (!token.ok) throw new Error(token.message);
    expect((await client.callStatus(proposed.proposalId)).ok && (await client.callStatus(proposed.proposalId))).toMatchObject({ call: { state: 'proposed' } });

    const authorized = await client.authorize({ proposalId: proposed.proposalId, token: token.token, runId: 'run-1', callId: 'call-1' });
    if (authorized.status !== 'authorized') throw new Error(`expected authorized, got ${JSON.stringify(authorized)}`);
    const { grant } = authorized;
    // The agent runs what the ledger recorded, byte for byte (canonical), not what it sent.
    expect(grant.canonicalArgs).toBe('{"amount":500,"to":"alice"}');
    expect(grant.argsDigest).toBe(createHash('sha256').update(grant.canonicalArgs).digest('hex'));
    expect(grant.approvers).toEqual(['fiona']);
    expect((await client.callStatus(proposed.proposalId)).ok && (await client.callStatus(proposed.proposalId))).toMatchObject({ call: { state: 'dispatched' } });

    const args = JSON.parse(grant.canonicalArgs) as { amount: number; to: string };
    const result = { transferred: args.amount, to: args.to, ranIn: 'agent' };
    const completed = await client.complete(grant, { status: 'succeeded', result });
    expect(completed).toMatchObject({ ok: true, proposalId: proposed.proposalId, duplicate: false });

    const status = await client.callStatus(proposed.proposalId);
    expect(status).toMatchObject({ ok: true, call: { state: 'succeeded', proposalId: proposed.proposalId, toolName: 'transfer' } });
    expect(status.ok && status.call.resultDigest).toBe(completed.ok && completed.resultDigest);
    // The server's own transfer tool never ran: the agent did.
    expect(server.fixture.executions).toEqual([]);

    // Idempotent per grant; a different result is refused; the approval is spent.
    expect(await client.complete(grant, { status: 'succeeded', result })).toMatchObject({ ok: true, duplicate: true });
    expect(await client.complete(grant, { status: 'succeeded', result: { transferred: 1 } })).toMatchObject({ ok: false, reason: 'result_conflict' });
    expect(await client.authorize({ proposalId: proposed.proposalId, token: token.token })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  });

  it('allowed calls authorize without a token; a failed run is recorded as failed', async () => {
    server = await loopbackServer();
    const client = server.client();
    const [proposed] = await client.propose(response([{ id: 'call-small', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]));
    if (proposed?.status !== 'allowed') throw new Error(JSON.stringify(proposed));
    const authorized = await client.authorize({ proposalId: proposed.proposalId });
    if (authorized.status !== 'authorized') throw new Error(JSON.stringify(authorized));
    expect(await client.complete(authorized.grant, { status: 'failed', error: 'bank offline' })).toMatchObject({ ok: true });
    expect(await client.callStatus(proposed.proposalId)).toMatchObject({ ok: true, call: { state: 'failed' } });
  });

  it('refusals are outcomes: denied by policy, not approved without a token, unknown calls', async () => {
    server = await loopbackServer();
    const client = server.client();
    const outcomes = await client.propose(
      response([
        { id: 'call-del', name: 'delete_repo', arguments: { repo: 'acme/x' } },
        { id: 'call-big', name: 'transfer', arguments: { amount: 900, to: 'eve' } },
      ]),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['denied', 'approval_required']);
    const big = outcomes[1]!;
    if (big.status !== 'approval_required') throw new Error('unreachable');
    expect(await client.authorize({ proposalId: big.proposalId })).toMatchObject({ status: 'approval_required', requestId: big.requestId });
    expect(await client.authorize({ proposalId: big.proposalId, token: 'e30.e30.e30' })).toMatchObject({ status: 'not_approved' });
    expect(await client.authorize({ proposalId: 'no-such-proposal' })).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    expect(await client.callStatus('no-such-proposal')).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await client.token('no-such-request')).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await client.token(big.requestId)).toMatchObject({ ok: false, reason: 'not_approved', status: 'pending' });
    expect(await client.waitForDecision('no-such-request')).toMatchObject({ ok: false, reason: 'not_found' });
  });

  it("another agent's calls read as unknown: authorize, complete and callStatus", async () => {
    server = await loopbackServer();
    const client = server.client();
    const [proposed] = await client.propose(response([{ id: 'call-small', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]));
    if (proposed?.status !== 'allowed') throw new Error(JSON.stringify(proposed));
    const rival = server.rivalClient();
    expect(await rival.callStatus(proposed.proposalId)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await rival.authorize({ proposalId: proposed.proposalId })).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    const authorized = await client.authorize({ proposalId: proposed.proposalId });
    if (authorized.status !== 'authorized') throw new Error(JSON.stringify(authorized));
    expect(await rival.complete(authorized.grant, { status: 'succeeded', result: 'forged' })).toMatchObject({ ok: false, reason: 'unknown_grant' });
    // The rival's forged result was not recorded: the owner's stands.
    expect(await client.complete(authorized.grant, { status: 'succeeded', result: 'real' })).toMatchObject({ ok: true, duplicate: false });
    // A run another agent started is refused as a whole, as outcomes.
    expect(await rival.propose(response([{ id: 'call-x', name: 'transfer', arguments: { amount: 5, to: 'x' } }]))).toMatchObject([
      { status: 'rejected', reason: 'run_owned_by_other_agent' },
    ]);
  });

  it('a grant edited by the agent is refused by complete (the ledger is the record)', async () => {
    server = await loopbackServer();
    const client = server.client();
    const [proposed] = await client.propose(response([{ id: 'call-small', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]));
    if (proposed?.status !== 'allowed') throw new Error(JSON.stringify(proposed));
    const authorized = await client.authorize({ proposalId: proposed.proposalId });
    if (authorized.status !== 'authorized') throw new Error(JSON.stringify(authorized));
    const edited = { ...authorized.grant, canonicalArgs: '{"amount":5000,"to":"mallory"}' };
    expect(await client.complete(edited, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
    const extended = { ...authorized.grant, admin: true } as typeof authorized.grant;
    expect(await client.complete(extended, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
  });

  it('waitForDecision returns pending on timeout and on abort, without throwing', async () => {
    // The server never polls and would hold a long-poll for an hour: only the client's own
    // deadline or abort can end a wait within the test timeout.
    server = await loopbackServer({ tuning: { pollIntervalMs: 3_600_000, maxWaitSeconds: 3600 } });
    const waitsAsked: Array<string | null> = [];
    const client = server.client({
      fetch: (input, init) => {
        waitsAsked.push(new URL(input).searchParams.get('wait'));
        return fetch(input, init);
      },
    });
    const [proposed] = await client.propose(response([{ id: 'call-1', name: 'transfer', arguments: { amount: 500, to: 'a' } }]));
    if (proposed?.status !== 'approval_required') throw new Error(JSON.stringify(proposed));
    waitsAsked.length = 0;
    expect(await client.waitForDecision(proposed.requestId, { timeoutMs: 300 })).toMatchObject({ ok: true, status: 'pending' });
    // The immediate read, then a long-poll no longer than the time left (rounded up to a second).
    expect(waitsAsked).toEqual(['0', '1']);
    const abort = new AbortController();
    const [aborted] = await Promise.all([client.waitForDecision(proposed.requestId, { signal: abort.signal }), later(150, () => abort.abort())]);
    expect(aborted).toMatchObject({ ok: true, status: 'pending' });
  });

  it('an approve-with-edits reads as edited: the edited call is the one to authorize, and it runs the edited arguments', async () => {
    server = await loopbackServer();
    const client = server.client();
    const [proposed] = await client.propose(response([{ id: 'call-1', name: 'transfer', arguments: { amount: 900, to: 'alice' } }]));
    if (proposed?.status !== 'approval_required') throw new Error(JSON.stringify(proposed));
    await server.fixture.fiona('POST', '/api/v1/decisions', { requestId: proposed.requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    const waited = await client.waitForDecision(proposed.requestId, { timeoutMs: 2000 });
    if (!waited.ok || waited.status !== 'edited') {
      throw new Error(`expected edited, got ${JSON.stringify(waited)}`);
    }
    // The original call's approval cannot be had; the edited call's can.
    expect(await client.token(proposed.requestId)).toMatchObject({ ok: false, reason: 'not_approved' });
    const token = await client.token(waited.editedRequestId);
    if (!token.ok) throw new Error(token.message);
    const authorized = await client.authorize({ proposalId: waited.editedProposalId, token: token.token });
    expect(authorized).toMatchObject({ status: 'authorized', grant: { canonicalArgs: '{"amount":400,"to":"alice"}' } });
  });

  it('a principal the agent may not act for is a rejected outcome for every call', async () => {
    server = await loopbackServer();
    const scoped = server.client({ token: SCOPED_TOKEN });
    const outcomes = await scoped.propose(
      response([
        { id: 'a', name: 'transfer', arguments: { amount: 5, to: 'x' } },
        { id: 'b', name: 'transfer', arguments: { amount: 6, to: 'x' } },
      ]),
    );
    expect(outcomes).toMatchObject([
      { status: 'rejected', reason: 'principal_not_allowed' },
      { status: 'rejected', reason: 'principal_not_allowed' },
    ]);
  });
});
