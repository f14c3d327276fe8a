import { LedgerError } from '@countersign/core/ledger';
import { sampleProposal } from '@countersign/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PostgresStore } from './open.ts';
import type { TcpProxy } from './testing/tcp-proxy.ts';
import { describePg, proxiedTestDatabase, tempStore } from './testing/test-database.ts';

const T0 = Date.UTC(2026, 0, 1);

describePg('postgres outage through a TCP proxy', () => {
  let proxy: TcpProxy;
  let store: PostgresStore;
  let cleanup: () => Promise<void>;
  const known = sampleProposal();

  beforeAll(async () => {
    let url: string;
    ({ proxy, url } = await proxiedTestDatabase());
    // Timeouts this short make "quickly" testable; cleanup drops the schema directly.
    ({ store, cleanup } = await tempStore({
      connectionString: url,
      statementTimeoutMs: 500,
      pool: { connectionTimeoutMillis: 500, max: 4 },
    }));
    await store.ledger.recordProposal(known);
  });
  afterAll(async () => {
    await cleanup?.();
    await proxy?.close();
  });

  /** Every kind of call the gate and server make, each on fresh ids. */
  function everyCall(): (() => Promise<unknown>)[] {
    const p = sampleProposal();
    return [
      () => store.ledger.recordProposal(p),
      () => store.ledger.getProposal(known.proposalId),
      () => store.ledger.findProposalByCall(known.runId, known.callId),
      () =>
        store.ledger.createApprovalRequest({
          requestId: `r-${p.proposalId}`,
          proposalId: known.proposalId,
          createdAt: T0,
          expiresAt: T0 + 1,
          requiredApprovals: 1,
          eligible: {},
        }),
      () => store.ledger.getApprovalRequest('r'),
      () => store.ledger.findApprovalRequestByProposal(known.proposalId),
      () => store.ledger.listApprovalRequests({ status: 'pending' }, T0),
      () => store.ledger.addDecision('r', { approver: 'a', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: 't' }),
      () => store.ledger.revokeApproval('r', T0),
      () => store.ledger.consume({ proposalId: known.proposalId, approval: { requestId: 'r', tokenId: 't' }, now: T0 }),
      () => store.ledger.recordResult(known.proposalId, { status: 'failed', resultDigest: 'x', at: T0 }),
      () => store.audit.append({ type: 'rejection', at: T0, reason: 'store_unavailable' }),
      () => store.audit.read({ limit: 1 }),
      () => store.audit.head(),
    ];
  }

  /** Through a stalled link nothing closes: only the store's own timeouts can end these calls within the test timeout. */
  async function expectAllUnavailableQuickly(): Promise<void> {
    const outcomes = await Promise.all(
      everyCall().map((call) =>
        call().then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    for (const error of outcomes) {
      expect(error).toBeInstanceOf(LedgerError);
      expect(error).toMatchObject({ code: 'store_unavailable' });
    }
  }

  async function expectWorking(): Promise<void> {
    expect(await store.ledger.getProposal(known.proposalId)).toMatchObject({ proposalId: known.proposalId });
    const p = sampleProposal();
    expect(await store.ledger.recordProposal(p)).toMatchObject({ ok: true, created: true });
    expect(await store.ledger.consume({ proposalId: p.proposalId, now: T0 })).toMatchObject({ ok: true });
    expect(await store.audit.append({ type: 'dispatch', at: T0 })).toMatchObject({ type: 'dispatch' });
  }

  it('connection refused mid-run: calls fail fast with store_unavailable, then recover', async () => {
    await expectWorking();
    // Calls in flight when the link goes must fail typed too, not hang or crash. The link
    // stalls first so that all 20 are surely in flight (none can finish) when it is cut.
    await proxy.cut('stall');
    const inFlight = Array.from({ length: 20 }, () => store.ledger.getProposal(known.proposalId).catch((e: unknown) => e));
    await proxy.cut('refuse');
    const outcomes = await Promise.all(inFlight);
    expect(outcomes).toHaveLength(20);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ name: 'LedgerError', code: 'store_unavailable' });
    await expectAllUnavailableQuickly();
    await proxy.restore();
    await expectWorking();
  });

  it('network partition (bytes stop, nothing closes): timeouts turn it into store_unavailable, then recover', async () => {
    await expectWorking();
    await proxy.cut('stall');
    await expectAllUnavailableQuickly();
    await expectAllUnavailableQuickly();
    await proxy.restore();
    await expectWorking();
  });
});
