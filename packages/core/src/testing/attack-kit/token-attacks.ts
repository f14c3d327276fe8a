import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KitContext } from './kit-context.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string) => token.split('.') as [string, string, string];
const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;

/** Evidence attacks: the token is missing, belongs to another call, is forged, or has expired. */
export function describeTokenAttacks(kit: KitContext): void {
  describe('approval evidence', () => {
    it('flag flip: an approved call without its token (or with a made-up one) does not run', async () => {
      const { call, proposalId } = await kit.approved();
      expect(await kit.run(kit.request(call, proposalId))).toMatchObject({ status: 'not_approved', reason: 'missing' });
      expect(await kit.run(kit.request(call, proposalId, 'approved'))).toMatchObject({ status: 'not_approved', reason: 'malformed' });
      expect(await kit.run(kit.request(call, proposalId, true as unknown as string))).toMatchObject({ status: 'not_approved', reason: 'malformed' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('replay: the token of one call presented for another call of the run', async () => {
      const first = await kit.approved();
      const second = kit.call({ runId: first.call.runId, arguments: first.call.arguments });
      const proposed = await kit.propose(second);
      expect(proposed).toMatchObject({ status: 'approval_required' });
      const proposalId = (proposed as { proposalId: string }).proposalId;
      expect(await kit.run(kit.request(second, proposalId, first.token))).toMatchObject({ status: 'not_approved', reason: 'call_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('replay between two approved calls of the run: each token runs only its own call', async () => {
      // Both calls have a minted token on record, so the gate holds a payload it expects for
      // each (mintedPayloadOf): the other call's token must still be read and refused.
      const first = await kit.approved();
      const second = await kit.approved({ runId: first.call.runId, arguments: first.call.arguments });
      expect(await kit.run(kit.request(second.call, second.proposalId, first.token))).toMatchObject({ status: 'not_approved', reason: 'call_mismatch' });
      expect(await kit.run(kit.request(first.call, first.proposalId, second.token))).toMatchObject({ status: 'not_approved', reason: 'call_mismatch' });
      expect(kit.runsOf(first.proposalId) + kit.runsOf(second.proposalId)).toBe(0);
      expect(await kit.run(kit.request(second.call, second.proposalId, second.token))).toMatchObject({ status: 'authorized' });
      expect(await kit.run(kit.request(first.call, first.proposalId, first.token))).toMatchObject({ status: 'authorized' });
      expect([kit.runsOf(first.proposalId), kit.runsOf(second.proposalId)]).toEqual([1, 1]);
    });

    it('cross-run: the token of the same call id in another run', async () => {
      const a = await kit.approved({ callId: 'kit-call-x' });
      const b = kit.call({ callId: 'kit-call-x', arguments: a.call.arguments });
      const proposed = await kit.propose(b);
      const proposalId = (proposed as { proposalId: string }).proposalId;
      expect(await kit.run(kit.request(b, proposalId, a.token))).toMatchObject({ status: 'not_approved', reason: 'run_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('cross-session: the token of a call in another session', async () => {
      const a = await kit.approved({ sessionId: 'kit-session-a' });
      const b = kit.call({ runId: a.call.runId, sessionId: 'kit-session-b', arguments: a.call.arguments });
      const proposed = await kit.propose(b);
      const proposalId = (proposed as { proposalId: string }).proposalId;
      expect(await kit.run(kit.request(b, proposalId, a.token))).toMatchObject({ status: 'not_approved', reason: 'session_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('forged, truncated, re-encoded and foreign-key signatures', async () => {
      const { call, proposalId, token } = await kit.approved();
      const [h, p, s] = parts(token);
      // Cut to whole base64 quanta, so the text stays well-formed and only the signature check can refuse it.
      const cut = Math.floor((s.length - 1) / 4) * 4;
      const forgeries: Array<[string, string]> = [
        [`${h}.${p}.${'A'.repeat(s.length)}`, 'bad_signature'],
        [`${h}.${p}.${s.slice(0, cut)}`, 'bad_signature'],
        [`${h}.${p}`, 'malformed'],
        [`${h}.${p}.${s}=`, 'malformed'],
        [`${h}.${b64({ ...json(p), sub: `${String(json(p).sub)} ` })}.${s}`, 'bad_signature'],
        [`${h}.${p}.${createHmac('sha256', randomBytes(32)).update(`${h}.${p}`).digest('base64url')}`, 'bad_signature'],
      ];
      for (const [forged, reason] of forgeries) {
        expect(await kit.run(kit.request(call, proposalId, forged)), `${forged.slice(-6)} is ${reason}`).toMatchObject({ status: 'not_approved', reason });
      }
      expect(kit.runsOf(proposalId)).toBe(0);
      // The forgeries did not burn the approval: the real token still works, once.
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'authorized' });
      expect(kit.runsOf(proposalId)).toBe(1);
    });

    it('alg switched to none: the verifier, not the token, picks the algorithm', async () => {
      const { call, proposalId, token } = await kit.approved();
      const [h, p] = parts(token);
      const none = `${b64({ ...json(h), alg: 'none' })}.${p}.`;
      const noneWithSig = `${b64({ ...json(h), alg: 'none' })}.${p}.AA`;
      for (const forged of [none, noneWithSig]) {
        const outcome = await kit.run(kit.request(call, proposalId, forged));
        expect(outcome).toMatchObject({ status: 'not_approved' });
        expect(['algorithm_mismatch', 'malformed']).toContain((outcome as { reason: string }).reason);
      }
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('expired: an approval past its deadline never runs, nor does a request never decided', async () => {
      const { call, proposalId, token } = await kit.approved({ toolName: 'kit_quick' });
      const undecided = kit.call({ toolName: 'kit_quick' });
      const proposed = await kit.propose(undecided);
      expect(proposed).toMatchObject({ status: 'approval_required' });
      const undecidedId = (proposed as { proposalId: string }).proposalId;
      if (kit.adapter.advanceClock !== undefined) await kit.adapter.advanceClock(2_000);
      else await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'not_approved', reason: 'expired' });
      expect(await kit.run(kit.request(undecided, undecidedId))).toMatchObject({ status: 'not_approved', reason: 'expired' });
      expect(kit.runsOf(proposalId) + kit.runsOf(undecidedId)).toBe(0);
    });

    it('before a decision the call waits: approval_required with its request, nothing runs', async () => {
      const call = kit.call();
      const proposed = await kit.propose(call);
      if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
      expect(await kit.run(kit.request(call, proposed.proposalId))).toMatchObject({ status: 'approval_required', requestId: proposed.requestId });
      expect(kit.runsOf(proposed.proposalId)).toBe(0);
    });

    it('a revoked approval never runs, with its token or without', async (context) => {
      const revoke = kit.adapter.revoke;
      if (revoke === undefined) return context.skip();
      const { call, proposalId, requestId, token } = await kit.approved();
      await revoke.call(kit.adapter, requestId);
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'not_approved', reason: 'approval_revoked' });
      expect(await kit.run(kit.request(call, proposalId))).toMatchObject({ status: 'not_approved', reason: 'approval_revoked' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it("key confusion: HS256 keyed with the gate's Ed25519 public key", async (context) => {
      const pem = kit.adapter.publicKeyPem?.();
      if (pem === undefined) return context.skip();
      const { call, proposalId, token } = await kit.approved();
      const [h, p] = parts(token);
      const header = b64({ ...json(h), alg: 'HS256' });
      const confused = `${header}.${p}.${createHmac('sha256', pem).update(`${header}.${p}`).digest('base64url')}`;
      expect(await kit.run(kit.request(call, proposalId, confused))).toMatchObject({ status: 'not_approved', reason: 'algorithm_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'authorized' });
    });

    it('a validly signed token for this call but another request or another token id: token_mismatch', async (context) => {
      const sign = kit.adapter.signClaims;
      if (sign === undefined) return context.skip();
      const { call, proposalId, token } = await kit.approved();
      const claims = json(parts(token)[1]);
      for (const other of [{ req: 'kit-request-elsewhere' }, { jti: 'kit-token-elsewhere' }]) {
        const forged = sign.call(kit.adapter, { ...claims, ...other });
        expect(await kit.run(kit.request(call, proposalId, forged)), JSON.stringify(other)).toMatchObject({ status: 'not_approved', reason: 'token_mismatch' });
      }
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('a denied request never runs', async () => {
      const call = kit.call();
      const proposed = await kit.propose(call);
      if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
      await kit.adapter.decide(proposed.requestId, 'deny');
      expect(await kit.port().waitForDecision(proposed.requestId, { timeoutMs: 1_000 })).toMatchObject({ ok: true, status: 'denied' });
      expect(await kit.port().token(proposed.requestId)).toMatchObject({ ok: false, reason: 'not_approved' });
      expect(await kit.run(kit.request(call, proposed.proposalId))).toMatchObject({ status: 'denied', reason: 'approval_denied' });
      expect(kit.runsOf(proposed.proposalId)).toBe(0);
    });
  });
}
