import { makeGateFixture } from '@countersign/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PostgresStore } from './open.ts';
import type { TcpProxy } from './testing/tcp-proxy.ts';
import { describePg, proxiedTestDatabase, tempStore } from './testing/test-database.ts';

describePg('postgres: an authorize whose COMMIT reply is lost', () => {
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
});
