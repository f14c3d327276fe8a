import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { makeGateFixture } from '../testing/gate-fixture.ts';
import { generateEd25519Key, Keyring } from '../token/keyring.ts';
import { mintApprovalToken } from '../token/mint.ts';
import { b64, tokenParts } from './attacks.test-helper.ts';

// Attacks on the approval token: missing, replayed, forged, re-keyed, expired, or minted for another run, session or request.

describe('gate: honest calls', () => {
  it('an allowed call executes with the arguments recorded from the model', async () => {
    const f = makeGateFixture();
    const c = f.call({ toolName: 'transfer', arguments: '{"to":"bob","amount":50}' });
    expect(await f.gate.propose(c)).toMatchObject({ status: 'allowed' });
    const out = await f.gate.dispatch(f.dispatchFor(c));
    expect(out).toMatchObject({ status: 'executed', result: { transferred: 50 } });
    expect(f.executions).toEqual([{ tool: 'transfer', args: { amount: 50, to: 'bob' }, callId: c.callId }]);
  });

  it('an approved call executes exactly the ledger call, once', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const out = await f.gate.dispatch(f.dispatchFor(call, token));
    expect(out).toMatchObject({ status: 'executed', result: { transferred: 500 } });
    expect(f.executions).toHaveLength(1);
  });

  it('approval_required until decided; the waiting agent gets the request id', async () => {
    const f = makeGateFixture();
    const c = f.call();
    const proposed = await f.gate.propose(c);
    expect(proposed).toMatchObject({ status: 'approval_required' });
    const out = await f.gate.dispatch(f.dispatchFor(c));
    expect(out).toMatchObject({ status: 'approval_required' });
    expect(f.executions).toHaveLength(0);
  });
});

describe('gate: attacks are rejected with their reason code (tokens)', () => {
  it('flag flip: run state says approved but there is no token', async () => {
    const f = makeGateFixture();
    const { call } = await f.proposeAndApprove();
    expect(await f.gate.dispatch(f.dispatchFor(call))).toMatchObject({ status: 'not_approved', reason: 'missing' });
    const flipped = { ...f.dispatchFor(call), token: true as unknown as string };
    expect(await f.gate.dispatch(flipped)).toMatchObject({ status: 'not_approved', reason: 'malformed' });
    expect(f.executions).toHaveLength(0);
  });

  it('replay: a token for one call presented for another call', async () => {
    const f = makeGateFixture();
    const first = await f.proposeAndApprove();
    const second = f.call({ arguments: first.call.arguments });
    await f.gate.propose(second);
    expect(await f.gate.dispatch(f.dispatchFor(second, first.token))).toMatchObject({
      status: 'not_approved',
      reason: 'call_mismatch',
    });
    expect(f.executions).toHaveLength(0);
  });

  it('forged, truncated and re-encoded signatures', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const [h, p, s] = tokenParts(token);
    const cases: Array<[string, string]> = [
      [`${h}.${p}.${'A'.repeat(43)}`, 'bad_signature'],
      [`${h}.${p}.${s.slice(0, 40)}`, 'bad_signature'],
      [`${h}.${p}`, 'malformed'],
      [`${h}.${p}.${s}=`, 'malformed'],
      [`${h}.${b64({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'user:42 ' })}.${s}`, 'bad_signature'],
      [
        `${h}.${p}.${createHmac('sha256', Buffer.alloc(32)).update(`${h}.${p}`).digest('base64url')}`,
        'bad_signature',
      ],
    ];
    for (const [forged, reason] of cases) {
      expect(await f.gate.dispatch(f.dispatchFor(call, forged))).toMatchObject({ status: 'not_approved', reason });
    }
    expect(f.executions).toHaveLength(0);
  });

  it('alg switched to none, or to HS256 keyed with the EdDSA public key', async () => {
    const ed = generateEd25519Key('ed1');
    const f = makeGateFixture({ keyring: new Keyring([ed]) });
    const { call, token } = await f.proposeAndApprove();
    const [, p] = tokenParts(token);
    const none = `${b64({ alg: 'none', typ: 'countersign-approval+jwt', kid: 'ed1' })}.${p}.AA`;
    const hsHeader = b64({ alg: 'HS256', typ: 'countersign-approval+jwt', kid: 'ed1' });
    const pem = ed.publicKey.export({ format: 'pem', type: 'spki' });
    const confused = `${hsHeader}.${p}.${createHmac('sha256', pem).update(`${hsHeader}.${p}`).digest('base64url')}`;
    for (const forged of [none, confused]) {
      expect(await f.gate.dispatch(f.dispatchFor(call, forged))).toMatchObject({
        status: 'not_approved',
        reason: 'algorithm_mismatch',
      });
    }
    expect(await f.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ status: 'executed' });
  });

  it('expired: the injected clock passes the approval deadline', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    f.clock.advance(601_000);
    expect(await f.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({
      status: 'not_approved',
      reason: 'expired',
    });
    expect(f.executions).toHaveLength(0);
  });

  it('cross-run: a token from run A for the same call id in run B', async () => {
    const f = makeGateFixture();
    const a = await f.proposeAndApprove({ runId: 'run-A', callId: 'call-x' });
    const b = f.call({ runId: 'run-B', callId: 'call-x', arguments: a.call.arguments });
    await f.gate.propose(b);
    expect(await f.gate.dispatch(f.dispatchFor(b, a.token))).toMatchObject({
      status: 'not_approved',
      reason: 'run_mismatch',
    });
  });

  it('cross-session: a token from another session of the same run', async () => {
    const f = makeGateFixture();
    const a = await f.proposeAndApprove({ sessionId: 'session-A' });
    const b = f.call({ sessionId: 'session-B', arguments: a.call.arguments });
    await f.gate.propose(b);
    expect(await f.gate.dispatch(f.dispatchFor(b, a.token))).toMatchObject({
      status: 'not_approved',
      reason: 'session_mismatch',
    });
    expect(await f.gate.dispatch({ ...f.dispatchFor(a.call, a.token), sessionId: 'session-B' })).toMatchObject({
      status: 'not_approved',
      reason: 'session_mismatch',
    });
  });

  it('a validly signed token for this call but another approval request', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const claims = JSON.parse(Buffer.from(tokenParts(token)[1], 'base64url').toString());
    const otherRequest = mintApprovalToken({ ...claims, req: 'req-elsewhere' }, f.keyring);
    expect(await f.gate.dispatch(f.dispatchFor(call, otherRequest))).toMatchObject({
      status: 'not_approved',
      reason: 'token_mismatch',
    });
    const otherJti = mintApprovalToken({ ...claims, jti: 'tok-elsewhere' }, f.keyring);
    expect(await f.gate.dispatch(f.dispatchFor(call, otherJti))).toMatchObject({
      status: 'not_approved',
      reason: 'token_mismatch',
    });
    expect(f.executions).toHaveLength(0);
  });
});
