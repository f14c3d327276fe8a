import { describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../ledger/types.ts';
import { loadPolicy } from '../../policy/load.ts';
import { sha256Hex } from '../../digest.ts';
import { FINANCE, makeGateFixture } from '../../testing/gate-fixture.ts';
import { digestResult } from './complete.ts';

/** `inner` with some methods replaced; the rest delegate to it (bound, so private fields work). */
function withOverrides<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function authorized(f: ReturnType<typeof makeGateFixture>) {
  const approved = await f.proposeAndApprove();
  const outcome = await f.gate.authorize(f.dispatchFor(approved.call, approved.token));
  if (outcome.status !== 'authorized') throw new Error(`expected authorized, got ${JSON.stringify(outcome)}`);
  return { ...approved, grant: outcome.grant };
}

describe('authorize', () => {
  it("hands out a plain-JSON grant built from the ledger's record, and runs nothing itself", async () => {
    const f = makeGateFixture();
    const { grant, requestId } = await authorized(f);
    expect(JSON.parse(JSON.stringify(grant))).toEqual(grant);
    expect(grant).toMatchObject({
      v: 1,
      canonicalArgs: '{"amount":500,"to":"alice"}',
      argsDigest: sha256Hex('{"amount":500,"to":"alice"}'),
      requestId,
      approvers: [FINANCE.id],
      agent: 'in-process',
      authorizedAt: f.clock(),
    });
    expect(f.executions).toHaveLength(0);
    const types = (await f.audit.read()).map((r) => r.type);
    expect(types.at(-1)).toBe('dispatch');
  });

  it('an allowed call gets a grant without approval fields', async () => {
    const f = makeGateFixture();
    const call = f.call({ toolName: 'read_file', arguments: { path: 'a' } });
    await f.gate.propose(call);
    const outcome = await f.gate.authorize(f.dispatchFor(call));
    if (outcome.status !== 'authorized') throw new Error(JSON.stringify(outcome));
    expect(outcome.grant.requestId).toBeUndefined();
    expect('definitionDigest' in outcome.grant).toBe(false);
    expect(await f.gate.complete(JSON.parse(JSON.stringify(outcome.grant)), { status: 'succeeded', result: 'x' })).toMatchObject({ ok: true });
  });

  it('a request opened under approve but never used (policy now allows) is not part of the grant', async () => {
    const f = makeGateFixture();
    const call = f.call();
    expect(await f.gate.propose(call)).toMatchObject({ status: 'approval_required' });
    const relaxed = makeGateFixture({
      ledger: f.ledger,
      audit: f.audit,
      policy: loadPolicy('version: 1\nrules:\n  - { id: all, tool: transfer, verdict: allow }\n', 'yaml'),
    });
    const outcome = await relaxed.gate.authorize(f.dispatchFor(call));
    if (outcome.status !== 'authorized') throw new Error(JSON.stringify(outcome));
    expect(outcome.grant.requestId).toBeUndefined();
    expect(await relaxed.gate.complete(outcome.grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
  });
});

describe('complete', () => {
  it('records the digest once; a conflicting result is audited as a rejection and the first stands', async () => {
    const f = makeGateFixture();
    const { grant } = await authorized(f);
    expect(await f.gate.complete(grant, { status: 'succeeded', result: { b: 1, a: 2 } })).toEqual({
      ok: true,
      proposalId: grant.proposalId,
      resultDigest: digestResult({ a: 2, b: 1 }),
      duplicate: false,
    });
    expect(await f.gate.complete(grant, { status: 'succeeded', result: { a: 2, b: 1 } })).toMatchObject({ ok: true, duplicate: true });
    expect(await f.gate.complete(grant, { status: 'failed', error: 'boom' })).toMatchObject({ ok: false, reason: 'result_conflict' });
    const records = await f.audit.read();
    expect(records.filter((r) => r.type === 'result')).toHaveLength(1);
    expect(records.at(-1)).toMatchObject({
      type: 'rejection',
      reason: 'result_conflict',
      proposalId: grant.proposalId,
      detail: { resultDigest: sha256Hex('boom'), recordedDigest: digestResult({ a: 2, b: 1 }) },
    });
  });

  it('a failure records the digest of its error message, as dispatch does', async () => {
    const f = makeGateFixture();
    const { grant } = await authorized(f);
    expect(await f.gate.complete(grant, { status: 'failed', error: 'timeout' })).toMatchObject({ ok: true, resultDigest: sha256Hex('timeout') });
    expect(await f.gate.callStatus(grant.proposalId)).toMatchObject({ ok: true, call: { state: 'failed', resultDigest: sha256Hex('timeout') } });
  });

  it('malformed grants and completions get typed outcomes, not exceptions', async () => {
    const f = makeGateFixture();
    const { grant } = await authorized(f);
    for (const bad of [null, 'grant', {}, { proposalId: 7 }]) {
      expect(await f.gate.complete(bad as never, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'unknown_grant' });
    }
    for (const bad of [null, {}, { status: 'failed' }, { status: 'failed', error: 'x'.repeat(70_000) }, { status: 'ok' }]) {
      expect(await f.gate.complete(grant, bad as never)).toMatchObject({ ok: false, reason: 'invalid_completion' });
    }
    expect(await f.gate.complete({ ...grant, v: 2 as 1 }, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
    expect(await f.gate.complete({ ...grant, approvers: ['mallory'] }, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
    expect(await f.gate.callStatus(grant.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
  });

  it('a store outage is store_unavailable; the retry records the result', async () => {
    const f = makeGateFixture();
    const { grant } = await authorized(f);
    const down = makeGateFixture({
      ledger: withOverrides<LedgerStore>(f.ledger, {
        recordResult: async () => {
          throw new Error('connection refused');
        },
      }),
      audit: f.audit,
    });
    expect(await down.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'store_unavailable' });
    expect(await f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: true, duplicate: false });
  });
});

describe('callStatus', () => {
  it("tells never ran from ran-result-unknown, and hides another agent's call", async () => {
    const f = makeGateFixture();
    const { call, token, proposalId } = await f.proposeAndApprove();
    expect(await f.gate.callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'proposed', request: { status: 'approved' } } });
    const outcome = await f.gate.authorize(f.dispatchFor(call, token));
    expect(outcome.status).toBe('authorized');
    // A crash here: the approval is spent, and the call is never authorized again.
    expect(await f.gate.callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched', dispatchedAt: f.clock() } });
    expect(await f.gate.authorize(f.dispatchFor(call, token))).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(await f.gate.callStatus(proposalId, { id: 'agent-b' })).toEqual({ ok: false, reason: 'not_found', message: 'no such call' });
    expect(await f.gate.callStatus('nope')).toMatchObject({ ok: false, reason: 'not_found' });
  });
});
