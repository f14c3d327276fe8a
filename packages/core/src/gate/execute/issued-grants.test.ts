import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { makeGateFixture } from '../../testing/gate-fixture.ts';
import { withOverrides } from '../attacks.test-helper.ts';
import type { Grant } from './grant.ts';

// `complete` of a grant this gate's `authorize` issued, unedited (the object or its copy),
// skips reading the call back (issued-grants.ts). These tests attack that shortcut: it must
// stay bound to exactly the call authorize consumed, once, for the agent it was issued to,
// and anything else (an edited grant, a replay, another gate) must get complete's full checks.

/** A fixture whose ledger counts `complete`'s read-back (getProposalWithRequest). */
function countingFixture(shared?: { ledger: LedgerStore; audit: MemoryAuditLog }) {
  const audit = shared?.audit ?? new MemoryAuditLog();
  const inner = shared?.ledger ?? new MemoryLedger({ audit });
  const reads = { count: 0 };
  const ledger = withOverrides<LedgerStore>(inner, {
    getProposalWithRequest: async (proposalId: string) => {
      reads.count++;
      return inner.getProposalWithRequest(proposalId);
    },
  });
  const f = makeGateFixture({ ledger, audit });
  return { f, reads, inner, audit };
}

async function authorized(f: ReturnType<typeof makeGateFixture>, overrides = {}) {
  const approved = await f.proposeAndApprove(overrides);
  const outcome = await f.gate.authorize(f.dispatchFor(approved.call, approved.token));
  if (outcome.status !== 'authorized') throw new Error(`expected authorized, got ${JSON.stringify(outcome)}`);
  return outcome.grant;
}

async function resultsOf(audit: MemoryAuditLog, proposalId: string) {
  return (await audit.read()).filter((r) => r.type === 'result' && r.proposalId === proposalId);
}

describe('complete of the grant authorize issued', () => {
  it('records the result with its audit record without reading the call back', async () => {
    const { f, reads, audit } = countingFixture();
    const grant = await authorized(f);
    reads.count = 0;
    expect(await f.gate.complete(grant, { status: 'succeeded', result: { ok: 1 } })).toMatchObject({ ok: true, duplicate: false });
    expect(reads.count).toBe(0);
    expect(await resultsOf(audit, grant.proposalId)).toHaveLength(1);
    expect(await f.gate.callStatus(grant.proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
  });

  it('is spent by its first complete: a replay of the same object reads the ledger (duplicate, or result_conflict)', async () => {
    const { f, reads, audit } = countingFixture();
    const grant = await authorized(f);
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
    reads.count = 0;
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: true });
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 2 })).toMatchObject({ ok: false, reason: 'result_conflict' });
    expect(reads.count).toBe(2);
    expect(await resultsOf(audit, grant.proposalId)).toHaveLength(1);
  });

  it('an issued grant edited in place is refused grant_mismatch, audited, and records nothing', async () => {
    const edits: Array<[string, (g: Grant) => void]> = [
      ['canonicalArgs', (g) => (g.canonicalArgs = '{"amount":5000000,"to":"mallory"}')],
      ['toolName', (g) => (g.toolName = 'deploy')],
      ['approvers', (g) => g.approvers!.push('mallory')],
      ['authorizedAt', (g) => (g.authorizedAt += 1)],
      ['tokenId', (g) => (g.tokenId = 'another-token')],
      ['v', (g) => ((g as { v: number }).v = 2)],
    ];
    for (const [field, edit] of edits) {
      const { f, audit } = countingFixture();
      const grant = await authorized(f);
      edit(grant);
      const outcome = await f.gate.complete(grant, { status: 'succeeded', result: 1 });
      expect(outcome, field).toMatchObject({ ok: false, reason: 'grant_mismatch' });
      expect((await audit.read()).at(-1), field).toMatchObject({ type: 'rejection', reason: 'grant_mismatch', proposalId: grant.proposalId });
      expect(await resultsOf(audit, grant.proposalId), field).toHaveLength(0);
      expect(await f.gate.callStatus(grant.proposalId), field).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    }
  });

  it("an issued grant pointed at another dispatched call completes neither", async () => {
    const { f, audit } = countingFixture();
    const first = await authorized(f);
    const second = await authorized(f);
    const swapped = first;
    swapped.proposalId = second.proposalId;
    expect(await f.gate.complete(swapped, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
    expect(await resultsOf(audit, second.proposalId)).toHaveLength(0);
    expect(await f.gate.complete(second, { status: 'succeeded', result: 2 })).toMatchObject({ ok: true, duplicate: false });
  });

  it('a copy with the same fields (the grant sent back over HTTP) is checked against the grant as issued, and completes without a read, once', async () => {
    const { f, reads } = countingFixture();
    const grant = await authorized(f);
    reads.count = 0;
    expect(await f.gate.complete(JSON.parse(JSON.stringify(grant)) as Grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
    expect(reads.count).toBe(0);
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: true });
    expect(reads.count).toBe(1);
  });

  it('a copy edited in any field is refused grant_mismatch, and spends the held call: the issued object then reads the ledger', async () => {
    const { f, reads, audit } = countingFixture();
    const grant = await authorized(f);
    const edited = { ...(JSON.parse(JSON.stringify(grant)) as Grant), canonicalArgs: '{"amount":5000000,"to":"mallory"}' };
    reads.count = 0;
    expect(await f.gate.complete(edited, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
    expect(await resultsOf(audit, grant.proposalId)).toHaveLength(0);
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
    expect(reads.count).toBe(2);
  });

  it("another agent presenting the issued grant gets unknown_grant; the agent it was issued to completes it", async () => {
    const { f, audit } = countingFixture();
    const grant = await authorized(f);
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 }, { id: 'rival' })).toMatchObject({ ok: false, reason: 'unknown_grant' });
    expect(await resultsOf(audit, grant.proposalId)).toHaveLength(0);
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
  });

  it('a grant issued by another gate on the same ledger is checked against the ledger there', async () => {
    const one = countingFixture();
    const grant = await authorized(one.f);
    const other = countingFixture({ ledger: one.inner, audit: one.audit });
    expect(await other.f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
    expect(other.reads.count).toBe(1);
    // The issuing gate's shortcut is still there, and the ledger answers it: already recorded.
    expect(await one.f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: true });
  });
});

describe('the shortcut holds the call, never the ledger state', () => {
  it('another gate on the same ledger recorded a different result first: the issuing gate is refused result_conflict, the first stands', async () => {
    const one = countingFixture();
    const grant = await authorized(one.f);
    const other = countingFixture({ ledger: one.inner, audit: one.audit });
    expect(await other.f.gate.complete(JSON.parse(JSON.stringify(grant)) as Grant, { status: 'succeeded', result: 'theirs' })).toMatchObject({ ok: true });
    one.reads.count = 0;
    expect(await one.f.gate.complete(grant, { status: 'succeeded', result: 'mine' })).toMatchObject({ ok: false, reason: 'result_conflict' });
    expect(one.reads.count).toBe(0);
    expect(await resultsOf(one.audit, grant.proposalId)).toHaveLength(1);
  });

  it('a Proxy of the issued grant (each field read as the original) is compared field by field: the held call completes', async () => {
    const { f, reads } = countingFixture();
    const grant = await authorized(f);
    reads.count = 0;
    expect(await f.gate.complete(new Proxy(grant, {}), { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
    expect(reads.count).toBe(0);
  });

  it('a Proxy naming the issued call first and another call after is refused: what completes is never chosen by a second read', async () => {
    const { f, audit } = countingFixture();
    const first = await authorized(f);
    const second = await authorized(f);
    let reads = 0;
    const shifty = new Proxy(first, { get: (target, key) => (key === 'proposalId' && reads++ > 1 ? second.proposalId : Reflect.get(target, key)) });
    const outcome = await f.gate.complete(shifty, { status: 'succeeded', result: 1 });
    expect(outcome.ok === false || outcome.proposalId === first.proposalId).toBe(true);
    expect(await resultsOf(audit, second.proposalId)).toHaveLength(0);
  });
});

describe('grant fields are compared exactly', () => {
  it('a value that only serializes like the ledger’s (toJSON, a String object, a numeric string) is a mismatch', async () => {
    const { f } = countingFixture();
    const grant = await authorized(f);
    const lookalikes: Array<Record<string, unknown>> = [
      { ...grant, canonicalArgs: { toJSON: () => grant.canonicalArgs } },
      { ...grant, toolName: new String(grant.toolName) },
      { ...grant, authorizedAt: String(grant.authorizedAt) },
      { ...grant, approvers: { toJSON: () => grant.approvers } },
    ];
    for (const lookalike of lookalikes) {
      expect(await f.gate.complete(lookalike as unknown as Grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
    }
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true });
  });
});
