import { makeGateFixture } from '@countersign/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PostgresStore } from './open.ts';
import type { TcpProxy } from './testing/tcp-proxy.ts';
import { describePg, proxiedTestDatabase, tempStore } from './testing/test-database.ts';

describePg('postgres: an authorize, a proposal or a result whose COMMIT reply is lost', () => {
  let proxy: TcpProxy;
  let store: PostgresStore;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    let url: string;
    ({ proxy, url } = await proxiedTestDatabase());
    ({ store, cleanup } = await tempStore({ connectionString: url, statementTimeoutMs: 2_000, pool: { connectionTimeoutMillis: 2_000, max: 4 } }));
  });
  afterAll(async () => {
    await cleanup?.();
    await proxy?.close();
  });

  it('is never answered as a refusal: the consume committed, so the answer is outcome_unknown and the call reads dispatched', async () => {
    const f = makeGateFixture({ ledger: store.ledger, audit: store.audit, definitions: store.definitions });
    const approved = await f.proposeAndApprove();
    const dropped = proxy.dropNextCommitReply();
    const outcome = await f.gate.authorize({ proposalId: approved.proposalId, token: approved.token });
    await dropped;
    // What the database holds: the approval is spent and the dispatch is recorded.
    const status = await f.gate.callStatus(approved.proposalId);
    expect(status).toMatchObject({ ok: true, call: { state: 'dispatched', request: { status: 'consumed' } } });
    expect((await store.audit.read()).filter((r) => r.type === 'dispatch' && r.proposalId === approved.proposalId)).toHaveLength(1);
    // So the agent must not be told "refused": it is told to read the call's status.
    expect(outcome).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown', proposalId: approved.proposalId });
    // And the spent approval is never authorized again.
    expect(await f.gate.authorize({ proposalId: approved.proposalId, token: approved.token })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  });

  it('a proposal whose COMMIT reply is lost is answered as recorded (approval_required with the request it opened), and proposing again answers the same', async () => {
    const f = makeGateFixture({ ledger: store.ledger, audit: store.audit, definitions: store.definitions });
    const call = f.call({ runId: 'lost-propose' });
    const dropped = proxy.dropNextCommitReply();
    const outcome = await f.gate.propose(call);
    await dropped;
    const stored = await store.ledger.findProposalByCall(call.runId, call.callId);
    const request = stored === undefined ? undefined : await store.ledger.findApprovalRequestByProposal(stored.proposalId);
    expect(request?.status).toBe('pending');
    expect(outcome).toMatchObject({ status: 'approval_required', proposalId: stored!.proposalId, requestId: request!.requestId });
    expect(await f.gate.propose(call)).toMatchObject({ status: 'approval_required', proposalId: stored!.proposalId, requestId: request!.requestId });
  });

  it('a propose-and-authorize whose COMMIT reply is lost is settled as recorded: its grant, once; the dispatch is recorded once; proposing again gets no grant', async () => {
    const f = makeGateFixture({ ledger: store.ledger, audit: store.audit, definitions: store.definitions });
    const call = f.call({ runId: 'lost-one-commit', toolName: 'read_file', arguments: { path: '/a' }, authorizeAllowed: true });
    const dropped = proxy.dropNextCommitReply();
    const outcome = await f.gate.propose(call);
    await dropped;
    const stored = await store.ledger.findProposalByCall(call.runId, call.callId);
    expect(stored?.state).toBe('dispatched');
    expect(outcome).toMatchObject({ status: 'allowed', proposalId: stored!.proposalId, grant: { proposalId: stored!.proposalId } });
    expect((await store.audit.read()).filter((r) => r.type === 'dispatch' && r.proposalId === stored!.proposalId)).toHaveLength(1);
    const again = await f.gate.propose(call);
    expect(again).toMatchObject({ status: 'allowed', proposalId: stored!.proposalId });
    expect('grant' in again).toBe(false);
    if (outcome.status !== 'allowed' || outcome.grant === undefined) return;
    expect(await f.gate.complete(outcome.grant, { status: 'succeeded', result: 'a' })).toMatchObject({ ok: true, duplicate: false });
  });

  it('a result whose COMMIT reply is lost is answered as recorded, and completing again answers duplicate', async () => {
    const f = makeGateFixture({ ledger: store.ledger, audit: store.audit, definitions: store.definitions });
    const approved = await f.proposeAndApprove({ runId: 'lost-complete' });
    const authorized = await f.gate.authorize({ proposalId: approved.proposalId, token: approved.token });
    if (authorized.status !== 'authorized') throw new Error(`authorize answered ${authorized.status}`);
    const dropped = proxy.dropNextCommitReply();
    const outcome = await f.gate.complete(authorized.grant, { status: 'succeeded', result: { done: true } });
    await dropped;
    expect(await f.gate.callStatus(approved.proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    expect(outcome).toMatchObject({ ok: true, proposalId: approved.proposalId, duplicate: false });
    expect(await f.gate.complete(authorized.grant, { status: 'succeeded', result: { done: true } })).toMatchObject({ ok: true, duplicate: true });
    expect((await store.audit.read()).filter((r) => r.type === 'result' && r.proposalId === approved.proposalId)).toHaveLength(1);
  });
});
