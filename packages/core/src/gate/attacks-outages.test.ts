import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../testing/gate-fixture.ts';
import { withOverrides } from './attacks.test-helper.ts';

// Fail closed, typed (invariant 6): store and audit outages, malformed requests and hostile ids get typed outcomes, never a run or a crash.

describe('gate: attacks are rejected with their reason code (outages and malformed input)', () => {
  it('store outage: every dispatch is not approved (store_unavailable) and nothing executes', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const fail = async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    };
    const down = withOverrides(f.ledger, { consume: fail });
    const outage = makeGateFixture({ ledger: down, audit: f.audit });
    expect(await outage.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({
      status: 'not_approved',
      reason: 'store_unavailable',
    });
    // every ledger method fails, as when the database is unreachable
    const unreachable = new Proxy(f.ledger, { get: () => fail });
    const allDown = makeGateFixture({ ledger: unreachable, audit: f.audit });
    expect(await allDown.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ reason: 'store_unavailable' });
    // A propose whose write fails cannot be read back either: it may have committed, so the
    // answer is outcome_unknown (propose again), never a claim that nothing was recorded.
    expect(await allDown.gate.propose(f.call())).toMatchObject({ status: 'rejected', reason: 'outcome_unknown' });
    expect(outage.executions.length + allDown.executions.length + f.executions.length).toBe(0);
    // the store is back: the same approval still works once
    expect(await f.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ status: 'executed' });
  });

  it('a store failure after the tool ran is reported as executed, result not recorded', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const flaky = makeGateFixture({
      ledger: withOverrides(f.ledger, {
        recordResult: async () => {
          throw new Error('connection terminated');
        },
      }),
      audit: f.audit,
    });
    expect(await flaky.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({
      status: 'executed',
      resultRecorded: false,
    });
    expect(flaky.executions).toHaveLength(1);
    expect(await flaky.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ reason: 'already_consumed' });
    expect(flaky.executions).toHaveLength(1);
  });

  it('an audit outage before execution stops the tool', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const brokenAudit = withOverrides(f.audit, {
      append: async () => {
        throw new Error('disk full');
      },
    });
    const g = makeGateFixture({ ledger: f.ledger, audit: brokenAudit });
    // An unrelated audit log is a second write: the consume committed before the append
    // failed, so the approval is spent. The answer says so (outcome_unknown, not a
    // refusal), and nothing runs.
    expect(await g.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown' });
    expect(g.executions).toHaveLength(0);
    expect(await g.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(g.executions).toHaveLength(0);
  });

  it('malformed dispatch requests get typed outcomes, not exceptions', async () => {
    const f = makeGateFixture();
    for (const bad of [null, undefined, 42, {}, { runId: 1, callId: [] }]) {
      expect(await f.gate.dispatch(bad as never)).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    }
    const lone = { runId: 'r', sessionId: 's', principal: 'p', callId: 'c\uD800', toolName: 't', arguments: {} };
    for (const bad of [null, {}, { runId: '', sessionId: 's', principal: 'p', callId: 'c', toolName: 't' }, lone]) {
      expect(await f.gate.propose(bad as never)).toMatchObject({ status: 'rejected', reason: 'invalid_call' });
    }
  });

  it('ids with control or bidirectional-formatting characters are refused at propose, before anything is recorded', async () => {
    const f = makeGateFixture();
    const good = { runId: 'r', sessionId: 's', principal: 'p', callId: 'c', toolName: 't', arguments: {} };
    // NUL: "r" and "r\u0000" must never be two runs that look (or hash, or key) alike.
    const refused = ['r\u0000', '\u0000', 'r\u001b[2J', 'r\u007f', 'r\u0085', 'r\u009f', 'r\u202e', 'r\u2066', 'r\u2028'];
    for (const field of ['runId', 'sessionId', 'principal', 'callId', 'toolName'] as const) {
      for (const value of refused) {
        const outcome = await f.gate.propose({ ...good, [field]: value });
        expect(outcome).toMatchObject({ status: 'rejected', reason: 'invalid_call' });
        expect('message' in outcome && outcome.message).toMatch(new RegExp(`^${field} must not contain control`));
      }
    }
    // Ordinary non-ASCII ids stay fine.
    expect(await f.gate.propose({ ...good, runId: 'run-é-日本-🙂', callId: 'c 1' })).not.toMatchObject({ reason: 'invalid_call' });
  });
});
